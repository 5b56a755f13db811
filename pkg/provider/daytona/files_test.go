package daytona_test

import (
	"context"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFilesInTmp(t *testing.T) {
	_, client, inst := started(t, daytonatest.Options{})
	ctx := context.Background()
	require.NoError(t, client.WriteFile(ctx, inst, "/tmp/scratch/x.bin", []byte{0, 1, 2, 255}))
	got, err := providertest.ReadAll(ctx, client, inst, "/tmp/scratch/x.bin")
	require.NoError(t, err)
	assert.Equal(t, []byte{0, 1, 2, 255}, got)
	assert.Equal(t, "4\n", run(t, client, inst, "wc -c < /tmp/scratch/x.bin").Output)
}

func TestListFilesDescribesEntries(t *testing.T) {
	_, client, inst := started(t, daytonatest.Options{})
	ctx := context.Background()
	run(t, client, inst, "mkdir -p d/sub && printf 12345 > d/five.txt")
	entries, err := client.ListFiles(ctx, inst, "d", 100)
	require.NoError(t, err)
	require.Len(t, entries, 2)
	assert.Equal(t, inst.WorkDir+"/d/five.txt", entries[0].Path)
	assert.EqualValues(t, 5, entries[0].Size)
	assert.False(t, entries[0].Dir)
	assert.WithinDuration(t, time.Now(), entries[0].ModifiedAt, time.Minute)
	assert.Equal(t, inst.WorkDir+"/d/sub", entries[1].Path)
	assert.True(t, entries[1].Dir)
}
