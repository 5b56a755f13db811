// Package secret encrypts credentials at rest with AES-256-GCM under a key
// ring: the first key encrypts, every key decrypts, so keys rotate without downtime.
package secret

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// KeySize is the length of an AES-256 key.
const KeySize = 32

// Sealed is a ciphertext and the id of the key that made it.
type Sealed struct {
	KeyID      string
	Ciphertext string // base64 of nonce || GCM output
}

// Keyring holds the keys. It is safe for concurrent use.
type Keyring struct {
	keys []key
}

type key struct {
	id   string
	aead cipher.AEAD
}

// ParseKeys reads a comma-separated list of base64 (standard or URL
// alphabet) 32-byte keys, as AUXILIA_SECRET_KEYS holds them. The first encrypts.
func ParseKeys(list string) (*Keyring, error) {
	var raws [][]byte
	for i, part := range strings.Split(list, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		raw, err := decodeKey(part)
		if err != nil {
			return nil, fmt.Errorf("key %d: %w", i+1, err)
		}
		raws = append(raws, raw)
	}
	if len(raws) == 0 {
		return nil, errors.New("no keys given")
	}
	return NewKeyring(raws...)
}

// NewKeyring returns a key ring of raw 32-byte keys; the first encrypts.
func NewKeyring(raws ...[]byte) (*Keyring, error) {
	kr := &Keyring{}
	seen := map[string]bool{}
	for _, raw := range raws {
		if len(raw) != KeySize {
			return nil, fmt.Errorf("a key must be %d bytes, not %d", KeySize, len(raw))
		}
		block, err := aes.NewCipher(raw)
		if err != nil {
			return nil, err
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, err
		}
		id := KeyID(raw)
		if seen[id] {
			continue
		}
		seen[id] = true
		kr.keys = append(kr.keys, key{id: id, aead: aead})
	}
	if len(kr.keys) == 0 {
		return nil, errors.New("no keys given")
	}
	return kr, nil
}

// KeyID names a key without revealing it: the start of its SHA-256.
func KeyID(raw []byte) string {
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:6])
}

// NewKey returns a fresh random key, base64-encoded as AUXILIA_SECRET_KEYS takes it.
func NewKey() string {
	raw := make([]byte, KeySize)
	if _, err := rand.Read(raw); err != nil {
		panic(err)
	}
	return base64.StdEncoding.EncodeToString(raw)
}

func decodeKey(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if raw, err := enc.DecodeString(s); err == nil {
			if len(raw) != KeySize {
				return nil, fmt.Errorf("must decode to %d bytes, not %d (make one with `auxilia keys generate`)", KeySize, len(raw))
			}
			return raw, nil
		}
	}
	return nil, errors.New("is not base64 (make one with `auxilia keys generate`)")
}

// PrimaryID is the id of the key that encrypts.
func (kr *Keyring) PrimaryID() string { return kr.keys[0].id }

// Seal encrypts plaintext under the first key. aad binds the ciphertext to
// where it is stored (a row's id and column), so it cannot be moved elsewhere.
func (kr *Keyring) Seal(plaintext []byte, aad string) (Sealed, error) {
	k := kr.keys[0]
	nonce := make([]byte, k.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return Sealed{}, err
	}
	out := k.aead.Seal(nonce, nonce, plaintext, []byte(aad))
	return Sealed{KeyID: k.id, Ciphertext: base64.StdEncoding.EncodeToString(out)}, nil
}

// ErrUnknownKey: the ciphertext was made with a key the ring does not hold.
var ErrUnknownKey = errors.New("secret: sealed with a key this server does not have (check AUXILIA_SECRET_KEYS)")

// Open decrypts s, checking that it belongs at aad.
func (kr *Keyring) Open(s Sealed, aad string) ([]byte, error) {
	for _, k := range kr.keys {
		if k.id != s.KeyID {
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(s.Ciphertext)
		if err != nil || len(raw) < k.aead.NonceSize() {
			return nil, errors.New("secret: malformed ciphertext")
		}
		plain, err := k.aead.Open(nil, raw[:k.aead.NonceSize()], raw[k.aead.NonceSize():], []byte(aad))
		if err != nil {
			return nil, errors.New("secret: ciphertext does not authenticate")
		}
		return plain, nil
	}
	return nil, ErrUnknownKey
}

// Reseal re-encrypts s under the first key; it returns s unchanged when it already is.
func (kr *Keyring) Reseal(s Sealed, aad string) (Sealed, bool, error) {
	if s.KeyID == kr.PrimaryID() {
		return s, false, nil
	}
	plain, err := kr.Open(s, aad)
	if err != nil {
		return s, false, err
	}
	out, err := kr.Seal(plain, aad)
	return out, err == nil, err
}
