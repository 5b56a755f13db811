// Package token issues, authenticates and revokes API bearer tokens. A
// token's value is shown once; only its SHA-256 hash is stored.
package token

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// Prefix starts every generated token value, so that leaked tokens are easy to scan for.
const Prefix = "aux_"

// touchEvery bounds how often a token's last use is written: at most once a minute.
const touchEvery = time.Minute

// Store keeps one workspace's tokens by hash.
type Store interface {
	Create(ctx context.Context, t auxilia.Token, hash string) (auxilia.Token, error)
	List(ctx context.Context, req auxilia.PageRequest) (auxilia.Page[auxilia.Token], error)
	Revoke(ctx context.Context, id string) error
	AddTicket(ctx context.Context, t auxilia.TerminalTicket, hash string) error
}

// Lookup finds tokens before their workspace is known: to authenticate a
// request, redeem a ticket, or bootstrap the first admin.
type Lookup interface {
	ByHash(ctx context.Context, hash string) (auxilia.Token, auxilia.Workspace, error)
	ByID(ctx context.Context, id string) (auxilia.Token, auxilia.Workspace, error)
	Touch(ctx context.Context, id string, at, since time.Time) error
	AnyLive(ctx context.Context, role auxilia.Role) (bool, error)
	HashExists(ctx context.Context, hash string) (bool, error)
	ClaimTicket(ctx context.Context, hash string, now time.Time) (auxilia.TerminalTicket, error)
}

// Workspaces finds or creates workspaces by name.
type Workspaces interface {
	Ensure(ctx context.Context, name string) (auxilia.Workspace, error)
}

// Transactor runs work atomically, under a named lock when asked.
type Transactor interface {
	InTx(ctx context.Context, fn func(ctx context.Context) error) error
	Lock(ctx context.Context, name string) error
}

// Service manages tokens.
type Service struct {
	tokens     func(workspaceID string) Store
	lookup     Lookup
	workspaces Workspaces
	tx         Transactor
	audit      auxilia.Auditor
	reads      *sharedReads // of tokens by hash, for Authenticate (shared.go)
}

// New returns a token service: tokens is the store bound to a workspace,
// lookup the one that finds tokens across workspaces.
func New(tokens func(workspaceID string) Store, lookup Lookup, workspaces Workspaces, tx Transactor, audit auxilia.Auditor) *Service {
	s := &Service{tokens: tokens, lookup: lookup, workspaces: workspaces, tx: tx, audit: audit}
	s.reads = newSharedReads(s.byHash)
	return s
}

// Issued is a token just created, with the value shown this once.
type Issued struct {
	auxilia.Token
	Value string
}

// Create issues a token in the actor's workspace.
func (s *Service) Create(ctx context.Context, workspaceID, name string, role auxilia.Role) (Issued, error) {
	var fe auxilia.FieldErrors
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		fe.Add("name", "is required")
	case utf8.RuneCountInString(name) > 255:
		fe.Add("name", "must be at most 255 characters")
	}
	if !role.Valid() {
		fe.Add("role", "must be one of: admin, member")
	}
	if err := fe.Err(); err != nil {
		return Issued{}, err
	}
	t := auxilia.Token{WorkspaceID: workspaceID, Name: name, Role: role}
	if a, ok := auxilia.ActorFrom(ctx); ok {
		t.CreatedBy = a.UserName // a person signed in to the console
	}
	return s.issue(ctx, t, newValue())
}

// Issue creates a token in the workspace called workspace (creating the
// workspace when missing): the command line's way in.
func (s *Service) Issue(ctx context.Context, workspace, name string, role auxilia.Role) (Issued, error) {
	var out Issued
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		ws, err := s.workspaces.Ensure(ctx, workspace)
		if err != nil {
			return err
		}
		out, err = s.Create(ctx, ws.ID, name, role)
		return err
	})
	return out, err
}

func (s *Service) issue(ctx context.Context, t auxilia.Token, value string) (Issued, error) {
	var out Issued
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		created, err := s.tokens(t.WorkspaceID).Create(ctx, t, Hash(value))
		if err != nil {
			return err
		}
		out = Issued{Token: created, Value: value}
		return auxilia.Audit(ctx, s.audit, t.WorkspaceID, "token.create", "token", created.ID,
			fmt.Sprintf("created %s token %q", t.Role, t.Name))
	})
	return out, err
}

// List returns a page of the workspace's tokens.
func (s *Service) List(ctx context.Context, workspaceID string, req auxilia.PageRequest) (auxilia.Page[auxilia.Token], error) {
	return s.tokens(workspaceID).List(ctx, req)
}

// Revoke ends a token of the workspace at once.
func (s *Service) Revoke(ctx context.Context, workspaceID, id string) error {
	return s.tx.InTx(ctx, func(ctx context.Context) error {
		if err := s.tokens(workspaceID).Revoke(ctx, id); err != nil {
			return err
		}
		return auxilia.Audit(ctx, s.audit, workspaceID, "token.revoke", "token", id, "revoked the token")
	})
}

// Authenticate returns the actor whose token has this value. For a revoked
// token it also returns the actor, beside the error, so that the refusal
// can be recorded where it belongs.
// Requests that carry the token at once share its reads (shared.go).
func (s *Service) Authenticate(ctx context.Context, value string) (auxilia.Actor, error) {
	got := s.reads.get(ctx, Hash(value))
	tok, ws, err := got.tok, got.ws, got.err
	if auxilia.IsCode(err, auxilia.CodeNotFound) {
		return auxilia.Actor{}, auxilia.Errorf(auxilia.CodeUnauthorized, "The token is unknown or revoked.")
	}
	if err != nil {
		return auxilia.Actor{}, err
	}
	a := auxilia.Actor{TokenID: tok.ID, TokenName: tok.Name, Role: tok.Role, Workspace: ws}
	if tok.RevokedAt != nil {
		return a, auxilia.Errorf(auxilia.CodeUnauthorized, "The token is unknown or revoked.")
	}
	return a, nil
}

// byHash reads the token of hash and its workspace, and records its use
// when the last one recorded is over touchEvery old: once for all the
// requests that share the read.
func (s *Service) byHash(ctx context.Context, hash string) found {
	tok, ws, err := s.lookup.ByHash(ctx, hash)
	if err != nil || tok.RevokedAt != nil {
		return found{tok, ws, err}
	}
	now := time.Now().UTC()
	if tok.LastUsedAt == nil || now.Sub(*tok.LastUsedAt) > touchEvery {
		err = s.lookup.Touch(ctx, tok.ID, now, now.Add(-touchEvery))
	}
	return found{tok, ws, err}
}

// Bootstrap makes sure someone can sign in. With value set and no admin
// token yet, it creates workspace "default" and an admin token with exactly
// that value. With value empty and no token at all, it creates one and
// returns it, for the caller to show once. Otherwise it does nothing.
func (s *Service) Bootstrap(ctx context.Context, value string) (*Issued, error) {
	var out *Issued
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		if err := s.tx.Lock(ctx, "token_bootstrap"); err != nil {
			return err
		}
		role := auxilia.Role("")
		if value != "" {
			role = auxilia.RoleAdmin
		}
		exists, err := s.lookup.AnyLive(ctx, role)
		if err != nil || exists {
			return err
		}
		name := "first admin"
		if value != "" {
			name = "bootstrap"
			if used, err := s.lookup.HashExists(ctx, Hash(value)); err != nil || used {
				return err // a revoked bootstrap token stays revoked
			}
		} else {
			value = newValue()
		}
		ws, err := s.workspaces.Ensure(ctx, auxilia.DefaultWorkspace)
		if err != nil {
			return err
		}
		issued, err := s.issue(ctx, auxilia.Token{WorkspaceID: ws.ID, Name: name, Role: auxilia.RoleAdmin}, value)
		out = &issued
		return err
	})
	return out, err
}

// Hash is how a token value is stored: tokens are long random strings, so a
// plain SHA-256 is enough and keeps each request's check cheap.
func Hash(value string) string {
	sum := sha256.Sum256([]byte(value))
	return hex.EncodeToString(sum[:])
}

// valueBytes is how many random bytes a token value carries.
const valueBytes = 32

// minDistinct is the fewest different characters a value chosen by an
// operator may have: a random value has about 31, "aux_aaaa…" has one.
const minDistinct = 16

// ErrWeakValue says what a token value given by an operator must look like.
var ErrWeakValue = fmt.Errorf("must look like the tokens the server makes: %s followed by %d URL-safe base64 characters "+
	"(%d random bytes, without padding), e.g. the output of: echo %s$(openssl rand -base64 %d | tr '+/' '-_' | tr -d '=')",
	Prefix, base64.RawURLEncoding.EncodedLen(valueBytes), valueBytes, Prefix, valueBytes)

// CheckValue accepts a token value chosen outside the server (the bootstrap
// token) only when it has the shape and strength of one the server makes.
// Its error never quotes the value.
func CheckValue(value string) error {
	body, ok := strings.CutPrefix(value, Prefix)
	if !ok || len(body) != base64.RawURLEncoding.EncodedLen(valueBytes) {
		return ErrWeakValue
	}
	if b, err := base64.RawURLEncoding.DecodeString(body); err != nil || len(b) != valueBytes {
		return ErrWeakValue
	}
	distinct := map[rune]bool{}
	for _, r := range body {
		distinct[r] = true
	}
	if len(distinct) < minDistinct {
		return ErrWeakValue
	}
	return nil
}

func newValue() string {
	b := make([]byte, valueBytes)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return Prefix + base64.RawURLEncoding.EncodeToString(b)
}
