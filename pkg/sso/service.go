package sso

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/secret"
	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// Store keeps people, their memberships and their sessions.
type Store interface {
	Upsert(ctx context.Context, u auxilia.User) (auxilia.User, error)
	SetMemberships(ctx context.Context, userID string, roles map[string]auxilia.Role) error
	Role(ctx context.Context, userID, workspaceID string) (auxilia.Role, error)
	CreateSession(ctx context.Context, s auxilia.Session, hash, csrfHash string) (auxilia.Session, error)
	SessionByHash(ctx context.Context, hash string) (auxilia.Session, string, auxilia.User, auxilia.Workspace, error)
	TouchSession(ctx context.Context, id string, at, since time.Time) error
	Refreshed(ctx context.Context, id string, at time.Time, keyID, refreshToken string) error
	RevokeSession(ctx context.Context, id string) error
	RevokeUserSessions(ctx context.Context, userID string) error
}

// Workspaces finds or creates workspaces by name.
type Workspaces interface {
	Ensure(ctx context.Context, name string) (auxilia.Workspace, error)
}

// Transactor runs work atomically.
type Transactor interface {
	InTx(ctx context.Context, fn func(ctx context.Context) error) error
}

// loginTTL is how long a sign-in may take at the provider.
const loginTTL = 10 * time.Minute

// touchEvery bounds how often a session's last use is written.
const touchEvery = time.Minute

// SessionPrefix starts every session cookie's value.
const SessionPrefix = "auxs_"

// Service signs people in and authenticates their sessions.
type Service struct {
	cfg        Config
	store      Store
	workspaces Workspaces
	tx         Transactor
	audit      auxilia.Auditor
	keys       *secret.Keyring
	now        func() time.Time

	mu       sync.Mutex
	provider *oidc.Provider // found by discovery on first use
}

// New returns the sign-in service. The provider is discovered on first use,
// so that the server starts while the provider is away.
func New(cfg Config, store Store, workspaces Workspaces, tx Transactor, audit auxilia.Auditor, keys *secret.Keyring) *Service {
	return &Service{cfg: cfg, store: store, workspaces: workspaces, tx: tx, audit: audit, keys: keys, now: time.Now}
}

// ProviderName is what the sign-in button names.
func (s *Service) ProviderName() string { return s.cfg.ProviderName }

// SecureCookies tells whether the cookies need HTTPS: everywhere but on a
// loopback callback.
func (s *Service) SecureCookies() bool {
	return !loopbackURL(s.cfg.RedirectURL)
}

func (s *Service) discover(ctx context.Context) (*oidc.Provider, oauth2.Config, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.provider == nil {
		p, err := oidc.NewProvider(ctx, s.cfg.Issuer)
		if err != nil {
			return nil, oauth2.Config{}, auxilia.Errorf(auxilia.CodeUnavailable,
				"The identity provider cannot be reached; try again shortly.")
		}
		s.provider = p
	}
	return s.provider, oauth2.Config{ClientID: s.cfg.ClientID, ClientSecret: s.cfg.ClientSecret,
		Endpoint: s.provider.Endpoint(), RedirectURL: s.cfg.RedirectURL, Scopes: s.cfg.Scopes}, nil
}

// login is what the short-lived sign-in cookie carries, sealed.
type login struct {
	State     string    `json:"state"`
	Nonce     string    `json:"nonce"`
	Verifier  string    `json:"verifier"`
	Workspace string    `json:"workspace,omitempty"`
	Expires   time.Time `json:"expires"`
}

const loginAAD = "oidc sign-in"

// Login starts a sign-in: it returns the provider's URL to send the browser
// to and the sealed value of the cookie that must come back with the
// callback. workspace, when set, is the workspace to open.
func (s *Service) Login(ctx context.Context, workspace string) (url, cookie string, err error) {
	_, oc, err := s.discover(ctx)
	if err != nil {
		return "", "", err
	}
	l := login{State: random(), Nonce: random(), Verifier: oauth2.GenerateVerifier(), Workspace: workspace,
		Expires: s.now().Add(loginTTL)}
	plain, _ := json.Marshal(l)
	sealed, err := s.keys.Seal(plain, loginAAD)
	if err != nil {
		return "", "", err
	}
	cookie = sealed.KeyID + "." + strings.NewReplacer("+", "-", "/", "_").Replace(sealed.Ciphertext)
	return oc.AuthCodeURL(l.State, oidc.Nonce(l.Nonce), oauth2.S256ChallengeOption(l.Verifier)), cookie, nil
}

func (s *Service) openLogin(cookie string) (login, error) {
	refused := auxilia.Errorf(auxilia.CodeUnauthorized, "The sign-in expired or was not started here: sign in again.")
	keyID, ct, ok := strings.Cut(cookie, ".")
	if !ok {
		return login{}, refused
	}
	ct = strings.NewReplacer("-", "+", "_", "/").Replace(ct)
	plain, err := s.keys.Open(secret.Sealed{KeyID: keyID, Ciphertext: ct}, loginAAD)
	if err != nil {
		return login{}, refused
	}
	var l login
	if json.Unmarshal(plain, &l) != nil || s.now().After(l.Expires) {
		return login{}, refused
	}
	return l, nil
}

// Signed is a session just made: the cookie's value and the CSRF token,
// both shown this once.
type Signed struct {
	Session auxilia.Session
	Value   string
	CSRF    string
}

// Callback finishes a sign-in: it checks state against the sign-in cookie,
// redeems code with the PKCE verifier, verifies the ID token (signature,
// issuer, audience, expiry and nonce), makes or updates the person, sets
// their memberships from their groups and opens a session.
func (s *Service) Callback(ctx context.Context, cookie, state, code string) (Signed, error) {
	l, err := s.openLogin(cookie)
	if err != nil {
		return Signed{}, err
	}
	if state == "" || subtle.ConstantTimeCompare([]byte(state), []byte(l.State)) != 1 {
		return Signed{}, auxilia.Errorf(auxilia.CodeUnauthorized, "The sign-in's state does not match: sign in again.")
	}
	if code == "" {
		return Signed{}, auxilia.Errorf(auxilia.CodeUnauthorized, "The identity provider sent no authorization code.")
	}
	p, oc, err := s.discover(ctx)
	if err != nil {
		return Signed{}, err
	}
	tok, err := oc.Exchange(ctx, code, oauth2.VerifierOption(l.Verifier))
	if err != nil {
		return Signed{}, auxilia.Errorf(auxilia.CodeUnauthorized, "The identity provider refused the sign-in: sign in again.")
	}
	claims, err := s.verify(ctx, p, tok)
	if err != nil {
		return Signed{}, err
	}
	if subtle.ConstantTimeCompare([]byte(claims.Nonce), []byte(l.Nonce)) != 1 {
		return Signed{}, auxilia.Errorf(auxilia.CodeUnauthorized, "The ID token's nonce does not match: sign in again.")
	}
	var out Signed
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		user, grants, err := s.remember(ctx, claims)
		if err != nil {
			return err
		}
		ws, err := chooseWorkspace(grants, l.Workspace)
		if err != nil {
			return err
		}
		sess := auxilia.Session{UserID: user.ID, WorkspaceID: ws, ExpiresAt: s.now().Add(s.cfg.Lifetime)}
		if tok.RefreshToken == "" {
			// Nothing to re-check the person with: the session ends when it would be re-checked.
			sess.ExpiresAt = s.now().Add(s.cfg.Refresh)
		} else if sess.RefreshKeyID, sess.RefreshToken, err = s.sealRefresh(tok.RefreshToken); err != nil {
			return err
		}
		value, csrf := SessionPrefix+random(), random()
		out.Value, out.CSRF = value, csrf
		if out.Session, err = s.store.CreateSession(ctx, sess, Hash(value), Hash(csrf)); err != nil {
			return err
		}
		return s.record(ctx, user, ws, "session.signin", "signed in to the console with "+s.cfg.ProviderName)
	})
	return out, err
}

// record audits a person's sign-in or sign-out in the workspace.
func (s *Service) record(ctx context.Context, user auxilia.User, workspaceID, action, detail string) error {
	return s.audit.Append(ctx, auxilia.AuditEntry{WorkspaceID: workspaceID, UserID: user.ID, UserName: user.DisplayName(),
		Action: action, ResourceType: "user", ResourceID: user.ID, Outcome: auxilia.OutcomeSuccess, Detail: detail})
}

// claims are what the server reads of an ID token or userinfo answer.
type claims struct {
	Subject string
	Nonce   string
	Email   string
	Name    string
	Groups  []string
}

var errNoIDToken = auxilia.Errorf(auxilia.CodeUnauthorized, "The identity provider sent no ID token.")

// verify checks the ID token the provider sent with tok and reads its claims.
func (s *Service) verify(ctx context.Context, p *oidc.Provider, tok *oauth2.Token) (claims, error) {
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return claims{}, errNoIDToken
	}
	return s.verifyIDToken(ctx, p, raw)
}

func (s *Service) verifyIDToken(ctx context.Context, p *oidc.Provider, raw string) (claims, error) {
	idt, err := p.Verifier(&oidc.Config{ClientID: s.cfg.ClientID, Now: s.now}).Verify(ctx, raw)
	if err != nil {
		return claims{}, auxilia.Errorf(auxilia.CodeUnauthorized, "The ID token is not valid: sign in again.")
	}
	var all map[string]any
	if err := idt.Claims(&all); err != nil {
		return claims{}, auxilia.Errorf(auxilia.CodeUnauthorized, "The ID token's claims cannot be read.")
	}
	c := s.readClaims(all)
	c.Subject, c.Nonce = idt.Subject, idt.Nonce
	return c, nil
}

func (s *Service) readClaims(all map[string]any) claims {
	c := claims{}
	c.Email, _ = all["email"].(string)
	c.Name, _ = all["name"].(string)
	switch g := all[s.cfg.GroupsClaim].(type) {
	case []any:
		for _, v := range g {
			if name, ok := v.(string); ok {
				c.Groups = append(c.Groups, name)
			}
		}
	case string:
		c.Groups = strings.Fields(strings.ReplaceAll(g, ",", " "))
	}
	return c
}

// grant is a workspace a person's groups give them, with the role.
type grant struct {
	workspace auxilia.Workspace
	role      auxilia.Role
}

// remember makes or updates the person and sets their memberships from
// their groups; it returns them with their grants, by workspace name.
func (s *Service) remember(ctx context.Context, c claims) (auxilia.User, []grant, error) {
	user, err := s.store.Upsert(ctx, auxilia.User{Issuer: s.cfg.Issuer, Subject: c.Subject, Email: c.Email, Name: c.Name})
	if err != nil {
		return auxilia.User{}, nil, err
	}
	byName := s.cfg.Groups.Roles(c.Groups)
	grants := make([]grant, 0, len(byName))
	ids := make(map[string]auxilia.Role, len(byName))
	for _, name := range workspaceNames(byName) {
		ws, err := s.workspaces.Ensure(ctx, name)
		if err != nil {
			return auxilia.User{}, nil, err
		}
		grants = append(grants, grant{workspace: ws, role: byName[name]})
		ids[ws.ID] = byName[name]
	}
	if err := s.store.SetMemberships(ctx, user.ID, ids); err != nil {
		return auxilia.User{}, nil, err
	}
	return user, grants, nil
}

// chooseWorkspace picks the session's workspace among grants (sorted by
// name): the one asked for, else "default", else the first.
func chooseWorkspace(grants []grant, asked string) (string, error) {
	if len(grants) == 0 {
		return "", auxilia.Errorf(auxilia.CodeForbidden, "None of your groups gives you a workspace here: ask an administrator.")
	}
	for _, want := range []string{asked, auxilia.DefaultWorkspace} {
		for _, g := range grants {
			if want != "" && g.workspace.Name == want {
				return g.workspace.ID, nil
			}
		}
		if asked != "" {
			return "", auxilia.Errorf(auxilia.CodeForbidden, "Your groups do not give you workspace %q.", asked)
		}
	}
	return grants[0].workspace.ID, nil
}

const refreshAAD = "oidc refresh token"

func (s *Service) sealRefresh(token string) (keyID, sealed string, err error) {
	out, err := s.keys.Seal([]byte(token), refreshAAD)
	return out.KeyID, out.Ciphertext, err
}

// Current is the person behind a session cookie, in the session's workspace.
type Current struct {
	Actor    auxilia.Actor
	User     auxilia.User
	Session  auxilia.Session
	csrfHash string
}

// CheckCSRF tells whether token is the session's CSRF token.
func (c Current) CheckCSRF(token string) bool {
	return token != "" && subtle.ConstantTimeCompare([]byte(Hash(token)), []byte(c.csrfHash)) == 1
}

var errSignedOut = auxilia.Errorf(auxilia.CodeUnauthorized, "Your session has ended: sign in again.")

// Authenticate returns who holds the session cookie value. A session past
// its refresh interval is re-checked with the provider first: a person the
// provider no longer knows has the session revoked, and one whose groups
// no longer give the session's workspace is refused.
func (s *Service) Authenticate(ctx context.Context, value string) (Current, error) {
	sess, csrfHash, user, ws, err := s.store.SessionByHash(ctx, Hash(value))
	if auxilia.IsCode(err, auxilia.CodeNotFound) {
		return Current{}, errSignedOut
	}
	if err != nil {
		return Current{}, err
	}
	now := s.now().UTC()
	if sess.RevokedAt != nil || !now.Before(sess.ExpiresAt) || now.Sub(sess.LastSeenAt) >= s.cfg.Idle {
		return Current{}, errSignedOut
	}
	if now.Sub(sess.RefreshedAt) >= s.cfg.Refresh {
		if err := s.refresh(ctx, sess, user); err != nil {
			return Current{}, err
		}
	}
	role, err := s.store.Role(ctx, user.ID, ws.ID)
	if auxilia.IsCode(err, auxilia.CodeNotFound) {
		return Current{}, auxilia.Errorf(auxilia.CodeUnauthorized,
			"Your groups no longer give you workspace %q: sign in again, or ask an administrator.", ws.Name)
	}
	if err != nil {
		return Current{}, err
	}
	if now.Sub(sess.LastSeenAt) > touchEvery {
		if err := s.store.TouchSession(ctx, sess.ID, now, now.Add(-touchEvery)); err != nil {
			return Current{}, err
		}
	}
	a := auxilia.Actor{UserID: user.ID, UserName: user.DisplayName(), UserEmail: user.Email, UserFullName: user.Name,
		SessionID: sess.ID, Role: role, Workspace: ws}
	return Current{Actor: a, User: user, Session: sess, csrfHash: csrfHash}, nil
}

// refresh asks the provider about the session's person with its refresh
// token and sets their memberships from the groups it says now.
func (s *Service) refresh(ctx context.Context, sess auxilia.Session, user auxilia.User) error {
	if sess.RefreshToken == "" {
		return errSignedOut
	}
	plain, err := s.keys.Open(secret.Sealed{KeyID: sess.RefreshKeyID, Ciphertext: sess.RefreshToken}, refreshAAD)
	if err != nil {
		return errSignedOut
	}
	p, oc, err := s.discover(ctx)
	if err != nil {
		return err
	}
	tok, err := oc.TokenSource(ctx, &oauth2.Token{RefreshToken: string(plain)}).Token()
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode < 500 {
		// The provider refused the grant: the person, or their consent, is gone.
		if err := s.store.RevokeSession(ctx, sess.ID); err != nil {
			return err
		}
		return errSignedOut
	}
	if err != nil {
		return auxilia.Errorf(auxilia.CodeUnavailable, "The identity provider cannot be reached to re-check your session; try again shortly.")
	}
	c, err := s.refreshedClaims(ctx, p, tok)
	if err != nil {
		return err
	}
	if c.Subject != user.Subject {
		return errSignedOut
	}
	return s.tx.InTx(ctx, func(ctx context.Context) error {
		if _, _, err := s.remember(ctx, c); err != nil {
			return err
		}
		keyID, sealed := "", ""
		if tok.RefreshToken != "" && tok.RefreshToken != string(plain) {
			if keyID, sealed, err = s.sealRefresh(tok.RefreshToken); err != nil {
				return err
			}
		}
		return s.store.Refreshed(ctx, sess.ID, s.now(), keyID, sealed)
	})
}

// refreshedClaims reads the person from a refresh's new ID token, or else
// from the userinfo endpoint.
func (s *Service) refreshedClaims(ctx context.Context, p *oidc.Provider, tok *oauth2.Token) (claims, error) {
	if raw, _ := tok.Extra("id_token").(string); raw != "" {
		return s.verifyIDToken(ctx, p, raw)
	}
	info, err := p.UserInfo(ctx, oauth2.StaticTokenSource(tok))
	if err != nil {
		return claims{}, auxilia.Errorf(auxilia.CodeUnavailable, "The identity provider's userinfo cannot be read; try again shortly.")
	}
	var all map[string]any
	if err := info.Claims(&all); err != nil {
		return claims{}, fmt.Errorf("userinfo claims: %w", err)
	}
	c := s.readClaims(all)
	c.Subject = info.Subject
	return c, nil
}

// Logout revokes the session the cookie value holds, if any.
func (s *Service) Logout(ctx context.Context, value string) error {
	sess, _, user, ws, err := s.store.SessionByHash(ctx, Hash(value))
	if auxilia.IsCode(err, auxilia.CodeNotFound) || (err == nil && sess.RevokedAt != nil) {
		return nil
	}
	if err != nil {
		return err
	}
	return s.tx.InTx(ctx, func(ctx context.Context) error {
		if err := s.store.RevokeSession(ctx, sess.ID); err != nil {
			return err
		}
		return s.record(ctx, user, ws.ID, "session.signout", "signed out of the console")
	})
}

// Hash is how session cookies and CSRF tokens are stored: they are long
// random strings, so a plain SHA-256 is enough.
func Hash(value string) string {
	sum := sha256.Sum256([]byte(value))
	return hex.EncodeToString(sum[:])
}

func random() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
