package run

import (
	"context"
	"encoding/json"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/secret"
)

// stateAAD binds an instance's sealed provider state to its row.
func stateAAD(instanceID string) string { return "instance:" + instanceID + ":state" }

// sealState encrypts the provider's data about an instance: it may hold
// access tokens (OpenSandbox's execd headers, for one).
func (s *Service) sealState(instanceID string, state json.RawMessage) (auxilia.SealedSecret, error) {
	if len(state) == 0 {
		return auxilia.SealedSecret{}, nil
	}
	sealed, err := s.Keys.Seal(state, stateAAD(instanceID))
	return auxilia.SealedSecret{KeyID: sealed.KeyID, Ciphertext: sealed.Ciphertext}, err
}

// providerInstance opens a stored instance for its provider's client.
func (s *Service) providerInstance(inst auxilia.Instance) (provider.Instance, error) {
	out := provider.Instance{ID: inst.ProviderRef, WorkDir: inst.WorkDir}
	if inst.State.Ciphertext == "" {
		return out, nil
	}
	state, err := s.Keys.Open(secret.Sealed{KeyID: inst.State.KeyID, Ciphertext: inst.State.Ciphertext}, stateAAD(inst.ID))
	out.State = state
	return out, err
}

// StateStore re-seals instance states.
type StateStore interface {
	ResealStates(ctx context.Context, fn func(id string, sealed auxilia.SealedSecret) (auxilia.SealedSecret, error)) (int, error)
}

// RotateKeys re-encrypts every live instance's provider state under the
// newest key, so that the older keys can be dropped. It returns how many changed.
func (s *Service) RotateKeys(ctx context.Context, states StateStore) (int, error) {
	return states.ResealStates(ctx, func(id string, sealed auxilia.SealedSecret) (auxilia.SealedSecret, error) {
		out, _, err := s.Keys.Reseal(secret.Sealed{KeyID: sealed.KeyID, Ciphertext: sealed.Ciphertext}, stateAAD(id))
		return auxilia.SealedSecret{KeyID: out.KeyID, Ciphertext: out.Ciphertext}, err
	})
}
