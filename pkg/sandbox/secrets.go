package sandbox

import (
	"context"

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
	sealed, err := r.Keys.Seal([]byte(value), secretAAD(sandboxID))
	if err != nil {
		return auxilia.SealedSecret{}, auxilia.SecretHint{}, err
	}
	return auxilia.SealedSecret{KeyID: sealed.KeyID, Ciphertext: sealed.Ciphertext}, hintOf(value), nil
}

// hintOf is what may be shown of a secret value.
func hintOf(value string) auxilia.SecretHint {
	h := secret.HintOf(value)
	return auxilia.SecretHint{IsSet: h.IsSet, Last4: h.Last4, Length: h.Length}
}

// open decrypts a sandbox's sealed secret ("" for none).
func (r *Registry) open(sandboxID string, s auxilia.SealedSecret) (string, error) {
	if s.Ciphertext == "" {
		return "", nil
	}
	plain, err := r.Keys.Open(secret.Sealed{KeyID: s.KeyID, Ciphertext: s.Ciphertext}, secretAAD(sandboxID))
	return string(plain), err
}

// RotateKeys re-encrypts every stored secret (of deleted sandboxes too: the
// reaper still needs them) under the newest key, and records the rotation
// in the audit log of each workspace it touched. It returns how many it re-encrypted.
func (r *Registry) RotateKeys(ctx context.Context) (int, error) {
	touched := map[string]bool{}
	n, err := r.Retained.ResealSecrets(ctx, func(sb auxilia.Sandbox, s auxilia.SealedSecret) (auxilia.SealedSecret, error) {
		out, changed, err := r.Keys.Reseal(secret.Sealed{KeyID: s.KeyID, Ciphertext: s.Ciphertext}, secretAAD(sb.ID))
		if changed {
			touched[sb.WorkspaceID] = true
		}
		return auxilia.SealedSecret{KeyID: out.KeyID, Ciphertext: out.Ciphertext}, err
	})
	for ws := range touched {
		if aerr := auxilia.Audit(ctx, r.Audit, ws, "key.rotate", "key", r.Keys.PrimaryID(),
			"re-encrypted this workspace's secrets under key "+r.Keys.PrimaryID()); aerr != nil && err == nil {
			err = aerr
		}
	}
	return n, err
}
