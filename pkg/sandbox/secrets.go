package sandbox

import (
	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/secret"
)

// secretAAD binds a sealed secret to its sandbox, so that it cannot be
// copied to another row and opened there.
func secretAAD(sandboxID string) string { return "sandbox:" + sandboxID + ":secret" }

// seal encrypts a sandbox's secret ("" for none) and describes it.
func (r *Registry) seal(sandboxID, value string) (auxilia.SealedSecret, auxilia.SecretHint, error) {
	if value == "" {
		return auxilia.SealedSecret{}, auxilia.SecretHint{}, nil
	}
	sealed, err := r.keys.Seal([]byte(value), secretAAD(sandboxID))
	if err != nil {
		return auxilia.SealedSecret{}, auxilia.SecretHint{}, err
	}
	h := secret.HintOf(value)
	return auxilia.SealedSecret{KeyID: sealed.KeyID, Ciphertext: sealed.Ciphertext},
		auxilia.SecretHint{IsSet: h.IsSet, Last4: h.Last4, Length: h.Length}, nil
}

// open decrypts a sandbox's sealed secret ("" for none).
func (r *Registry) open(sandboxID string, s auxilia.SealedSecret) (string, error) {
	if s.Ciphertext == "" {
		return "", nil
	}
	plain, err := r.keys.Open(secret.Sealed{KeyID: s.KeyID, Ciphertext: s.Ciphertext}, secretAAD(sandboxID))
	return string(plain), err
}

// Reseal re-encrypts a stored secret under the newest key (key rotation).
func (r *Registry) Reseal(sandboxID string, s auxilia.SealedSecret) (auxilia.SealedSecret, error) {
	out, _, err := r.keys.Reseal(secret.Sealed{KeyID: s.KeyID, Ciphertext: s.Ciphertext}, secretAAD(sandboxID))
	return auxilia.SealedSecret{KeyID: out.KeyID, Ciphertext: out.Ciphertext}, err
}
