package run

import (
	"context"
	"errors"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/secret"
)

// keptAAD binds kept files' sealed provider state to their row.
func keptAAD(id string) string { return "kept:" + id + ":state" }

// keepFiles keeps the files of the thread's instance at its provider and
// records them as the thread's newest kept files.
func (s *Service) keepFiles(ctx context.Context, client provider.Client, thread auxilia.Thread, keptFor func() auxilia.KeptFiles) error {
	keeper, ok := client.(provider.Keeper)
	if !ok {
		return provider.Errorf(provider.ErrUnsupported, provider.ProviderOf(client), "keep", "instances' files cannot be kept")
	}
	pinst, err := s.providerInstance(*thread.Instance)
	if err != nil {
		return err
	}
	kept, err := keeper.Keep(ctx, pinst)
	if err != nil {
		return err
	}
	row := keptFor()
	row.ID, row.ProviderRef, row.At, row.Bytes = auxilia.NewID(), kept.ID, kept.At.UTC(), kept.Bytes
	if len(kept.State) > 0 {
		sealed, err := s.Keys.Seal(kept.State, keptAAD(row.ID))
		if err != nil {
			return err
		}
		row.State = auxilia.SealedSecret{KeyID: sealed.KeyID, Ciphertext: sealed.Ciphertext}
	}
	_, err = s.Kept(row.WorkspaceID).Add(ctx, row)
	return err
}

// openKept opens stored kept files for their provider's client.
func (s *Service) openKept(k auxilia.KeptFiles) (provider.Kept, error) {
	out := provider.Kept{ID: k.ProviderRef, At: k.At}
	if k.State.Ciphertext == "" {
		return out, nil
	}
	state, err := s.Keys.Open(secret.Sealed{KeyID: k.State.KeyID, Ciphertext: k.State.Ciphertext}, keptAAD(k.ID))
	out.State = state
	return out, err
}

// createFrom makes a new instance holding the kept files.
func (s *Service) createFrom(ctx context.Context, client provider.Client, labels provider.Labels, from auxilia.KeptFiles) (provider.Instance, error) {
	keeper, ok := client.(provider.Keeper)
	if !ok {
		return provider.Instance{}, provider.Errorf(provider.ErrUnsupported, provider.ProviderOf(client), "create_from", "instances' files cannot be kept")
	}
	kept, err := s.openKept(from)
	if err != nil {
		return provider.Instance{}, err
	}
	return keeper.CreateFrom(ctx, labels, kept)
}

// forget deletes kept files at their provider and forgets them; it
// reports whether they are gone.
func (s *Service) forget(ctx context.Context, k auxilia.KeptFiles) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), reapProviderLimit)
	defer cancel()
	client, _, err := s.Sandboxes.RetainedClient(ctx, k.SandboxID)
	if err != nil {
		return false
	}
	keeper, ok := client.(provider.Keeper)
	if !ok {
		return false
	}
	kept, err := s.openKept(k)
	if err != nil {
		return false
	}
	if err := keeper.Forget(ctx, kept); err != nil && !errors.Is(err, provider.ErrGone) {
		return false
	}
	return s.Kept(k.WorkspaceID).Delete(ctx, k.ID) == nil
}
