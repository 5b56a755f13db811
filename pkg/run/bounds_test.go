package run_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// boundedWorld is a world with a run started, and the host folder of its
// instance (the fake's working directory is that folder itself).
func boundedWorld(t *testing.T) (w world, ws, runID, dir string) {
	w = newWorld(t, storetest.Open(t, store.SQLite))
	r := w.start(t, "t1")
	p, err := w.app.Runs.Write(context.Background(), w.ws.ID, r.ID, run.WriteInput{Path: "seed.txt"}, false)
	require.NoError(t, err)
	return w, w.ws.ID, r.ID, path.Dir(p)
}

// writeHostFile writes size bytes of fill into a file of the instance, a chunk at a time.
func writeHostFile(t *testing.T, file string, fill byte, size int) {
	f, err := os.Create(file)
	require.NoError(t, err)
	chunk := bytes.Repeat([]byte{fill}, 1<<20)
	for left := size; left > 0; left -= len(chunk) {
		_, err := f.Write(chunk[:min(left, len(chunk))])
		require.NoError(t, err)
	}
	require.NoError(t, f.Close())
}

// allocated returns the bytes the process allocated while fn ran.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// read_file once held the whole file, and a slice of its lines: one line of
// a 64 MiB file of newlines cost the server more than a gigabyte.
func TestReadingALargeFileHoldsItsWindowOnly(t *testing.T) {
	w, ws, id, dir := boundedWorld(t)
	const size = 64 << 20
	writeHostFile(t, filepath.Join(dir, "big.txt"), '\n', size)
	var text run.Text
	var err error
	used := allocated(func() {
		text, err = w.app.Runs.Read(context.Background(), ws, id, run.ReadInput{Path: "big.txt", Offset: 1000, Limit: 1}, false)
	})
	require.NoError(t, err)
	assert.Equal(t, run.Text{Path: path.Join(dir, "big.txt"), Content: "\n", Offset: 1000, Lines: 1, TotalLines: size}, text)
	assert.Less(t, used, uint64(4<<20), "the server holds the window, not the file")
}

func TestEditRefusesAFileLargerThanItsBound(t *testing.T) {
	w, ws, id, dir := boundedWorld(t)
	writeHostFile(t, filepath.Join(dir, "big.txt"), 'x', run.MaxEditBytes+1)
	_, err := w.app.Runs.Edit(context.Background(), ws, id, run.EditInput{Path: "big.txt", OldString: "x", NewString: "y"}, false)
	var problem *auxilia.Error
	require.ErrorAs(t, err, &problem)
	assert.Equal(t, auxilia.CodeInvalid, problem.Code)
	require.Len(t, problem.Fields, 1)
	assert.Equal(t, "path", problem.Fields[0].Field)
	assert.Contains(t, problem.Fields[0].Message, "is larger than 16 MiB, the most edit_file changes")

	writeHostFile(t, filepath.Join(dir, "edge.txt"), 'x', run.MaxEditBytes)
	n, err := w.app.Runs.Edit(context.Background(), ws, id, run.EditInput{Path: "edge.txt", OldString: "x", NewString: "y", ReplaceAll: true}, false)
	require.NoError(t, err, "a file of exactly the bound is edited")
	assert.Equal(t, run.MaxEditBytes, n)
}

// ls, glob and grep answer with at most their bound, and say so.
func TestToolAnswersAreCappedAndSaySo(t *testing.T) {
	w, ws, id, dir := boundedWorld(t)
	ctx := context.Background()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "many"), 0o755))
	for i := range run.MaxListEntries + 1 {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "many", fmt.Sprintf("f%05d.txt", i)), nil, 0o644))
	}
	listing, err := w.app.Runs.List(ctx, ws, id, run.ListInput{Path: "many"}, false)
	require.NoError(t, err)
	assert.Len(t, listing.Entries, run.MaxListEntries)
	assert.True(t, listing.Truncated)

	found, err := w.app.Runs.Glob(ctx, ws, id, run.GlobInput{Pattern: "many/*.txt"}, false)
	require.NoError(t, err)
	assert.Len(t, found.Paths, run.MaxGlobResults)
	assert.True(t, found.Truncated)
	found, err = w.app.Runs.Glob(ctx, ws, id, run.GlobInput{Pattern: "many/f0000?.txt"}, false)
	require.NoError(t, err)
	assert.Len(t, found.Paths, 10)
	assert.False(t, found.Truncated)

	needles := strings.Repeat("a needle\n", run.MaxGrepMatches+1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "needles.txt"), []byte(needles), 0o644))
	grepped, err := w.app.Runs.Grep(ctx, ws, id, run.GrepInput{Pattern: "needle", Path: "needles.txt"}, false)
	require.NoError(t, err)
	assert.Len(t, grepped.Matches, run.MaxGrepMatches)
	assert.True(t, grepped.Truncated)

	long := "needle " + strings.Repeat("é", 100<<10)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "long.txt"), []byte(long+"\nneedle again\n"), 0o644))
	grepped, err = w.app.Runs.Grep(ctx, ws, id, run.GrepInput{Pattern: "needle", Path: "long.txt"}, false)
	require.NoError(t, err)
	require.Len(t, grepped.Matches, 2, "a long line takes no room from the next")
	assert.True(t, strings.HasPrefix(long, grepped.Matches[0].Text))
	assert.Equal(t, run.MaxLineBytes-1, len(grepped.Matches[0].Text), "cut on a whole character")
	assert.Equal(t, "needle again", grepped.Matches[1].Text)
	assert.True(t, grepped.Truncated)
}
