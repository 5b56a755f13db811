package secret

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSealOpenAndRotate(t *testing.T) {
	oldKey, newKey := NewKey(), NewKey()
	old, err := ParseKeys(oldKey)
	require.NoError(t, err)
	sealed, err := old.Seal([]byte("s3cr3t-value"), "sandbox:1:secret")
	require.NoError(t, err)
	assert.NotContains(t, sealed.Ciphertext, "s3cr3t")
	assert.Equal(t, old.PrimaryID(), sealed.KeyID)

	plain, err := old.Open(sealed, "sandbox:1:secret")
	require.NoError(t, err)
	assert.Equal(t, "s3cr3t-value", string(plain))
	_, err = old.Open(sealed, "sandbox:2:secret")
	assert.Error(t, err, "a ciphertext moved to another row does not open")

	rotated, err := ParseKeys(newKey + ", " + oldKey)
	require.NoError(t, err)
	plain, err = rotated.Open(sealed, "sandbox:1:secret")
	require.NoError(t, err, "old ciphertexts open after a new key is added")
	assert.Equal(t, "s3cr3t-value", string(plain))

	resealed, changed, err := rotated.Reseal(sealed, "sandbox:1:secret")
	require.NoError(t, err)
	assert.True(t, changed)
	assert.Equal(t, rotated.PrimaryID(), resealed.KeyID)

	onlyNew, err := ParseKeys(newKey)
	require.NoError(t, err)
	plain, err = onlyNew.Open(resealed, "sandbox:1:secret")
	require.NoError(t, err, "after rotation the old key can be dropped")
	assert.Equal(t, "s3cr3t-value", string(plain))
	_, err = onlyNew.Open(sealed, "sandbox:1:secret")
	assert.ErrorIs(t, err, ErrUnknownKey)
}

func TestParseKeysRefusesBadKeys(t *testing.T) {
	for _, bad := range []string{"", " , ", "not base64!", "c2hvcnQ="} {
		_, err := ParseKeys(bad)
		assert.Error(t, err, "%q", bad)
	}
}

func TestKeyFileIsCreatedPrivateAndReused(t *testing.T) {
	dir := t.TempDir()
	kr, created, err := LoadOrCreateKeyFile(dir)
	require.NoError(t, err)
	assert.True(t, created)
	info, err := os.Stat(filepath.Join(dir, KeyFile))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())

	again, created, err := LoadOrCreateKeyFile(dir)
	require.NoError(t, err)
	assert.False(t, created)
	assert.Equal(t, kr.PrimaryID(), again.PrimaryID())
}

func TestHints(t *testing.T) {
	assert.Equal(t, Hint{}, HintOf(""))
	assert.Equal(t, Hint{IsSet: true, Length: 9}, HintOf("123456789"), "short secrets show no characters")
	assert.Equal(t, Hint{IsSet: true, Last4: "x9Qz", Length: 12}, HintOf("abcdefghx9Qz"))
	assert.Equal(t, "ü9Qz", HintOf(strings.Repeat("a", 8)+"ü9Qz").Last4, "characters, not bytes")
}
