package secret

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// KeyFile is the embedded default's key file in the data folder.
const KeyFile = "secret.key"

// LoadOrCreateKeyFile reads the key ring kept in dir/secret.key, creating the
// file (mode 0600) with a fresh key when it does not exist. created reports that.
func LoadOrCreateKeyFile(dir string) (kr *Keyring, created bool, err error) {
	path := filepath.Join(dir, KeyFile)
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, false, err
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			return LoadOrCreateKeyFile(dir) // made meanwhile by another process
		}
		if err != nil {
			return nil, false, err
		}
		key := NewKey()
		_, werr := f.WriteString(key + "\n")
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return nil, false, werr
		}
		kr, err := ParseKeys(key)
		return kr, true, err
	}
	if err != nil {
		return nil, false, err
	}
	kr, err = ParseKeys(strings.TrimSpace(string(raw)))
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	return kr, false, nil
}
