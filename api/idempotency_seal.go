package api

import (
	"encoding/json"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/secret"
)

// A kept answer is sealed with the key ring before it is stored: the answer
// to a token create holds the token's value, and a replay must give the
// same token back, or the client that lost the first answer is left with
// a token it cannot use and no way to learn it. Sealing keeps the replay
// whole while nothing at rest holds the value in the clear; every route
// behind idempotent is covered alike, whatever its answer holds.

// keptAnswer is how a sealed answer body is stored.
type keptAnswer struct {
	KeyID      string `json:"key_id"`
	Ciphertext string `json:"ciphertext"`
}

// answerAAD binds a kept answer to the token and key it answers, so that it
// cannot be replayed to another.
func answerAAD(tokenID, key string) string { return "idempotency:" + tokenID + ":" + key }

// sealAnswer encrypts an answer body for keeping.
func sealAnswer(keys *secret.Keyring, tokenID, key string, body []byte) ([]byte, error) {
	sealed, err := keys.Seal(body, answerAAD(tokenID, key))
	if err != nil {
		return nil, err
	}
	return json.Marshal(keptAnswer(sealed))
}

// openAnswer decrypts a kept answer body. One sealed with a key the server
// no longer has (or kept before answers were sealed) cannot be given again.
func openAnswer(keys *secret.Keyring, tokenID, key string, kept []byte) ([]byte, error) {
	var k keptAnswer
	if err := json.Unmarshal(kept, &k); err == nil && k.Ciphertext != "" {
		if body, err := keys.Open(secret.Sealed(k), answerAAD(tokenID, key)); err == nil {
			return body, nil
		}
	}
	return nil, auxilia.Errorf(auxilia.CodeConflict,
		"The answer to the request first made with this Idempotency-Key cannot be read by this server; use a new key.")
}
