package daytonatest

import (
	"net/http"
	"strings"
	"time"
)

// apiKey is one API key the control plane knows.
type apiKey struct {
	value     string
	createdAt time.Time
	expiresAt time.Time // zero: never
	lastUsed  time.Time
	// permissions are a scoped key's; nil is every permission.
	permissions []string
}

func newAPIKey(value string, expiresAt time.Time) *apiKey {
	return &apiKey{value: value, createdAt: time.Now(), expiresAt: expiresAt}
}

// AddKey makes the control plane accept key, until expiresAt (zero: for ever).
func (s *Server) AddKey(key string, expiresAt time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys[key] = newAPIKey(key, expiresAt)
}

// AddScopedKey makes the control plane accept key with only the given
// permissions (PermWriteSandboxes, …): Daytona refuses it what they do not allow.
func (s *Server) AddScopedKey(key string, permissions ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := newAPIKey(key, time.Time{})
	k.permissions = append([]string{}, permissions...)
	s.keys[key] = k
}

// permissionList is the key's permissions as Daytona lists them.
func (k *apiKey) permissionList() []string {
	if k.permissions == nil {
		return []string{PermWriteSandboxes, PermDeleteSandboxes}
	}
	return k.permissions
}

// ExpireKey makes key expired from now on: Daytona then refuses it as it
// refuses an unknown one.
func (s *Server) ExpireKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if k, ok := s.keys[key]; ok {
		k.expiresAt = s.now().Add(-time.Second)
	}
}

// RevokeKey forgets key.
func (s *Server) RevokeKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.keys, key)
}

// authorized returns the request's valid API key, or nil. Caller holds s.mu.
func (s *Server) authorized(r *http.Request) *apiKey {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return nil
	}
	k := s.keys[strings.TrimSpace(token)]
	if k == nil || (!k.expiresAt.IsZero() && k.expiresAt.Before(s.now())) {
		return nil
	}
	k.lastUsed = s.now()
	return k
}

// masked shows a key as Daytona's key list does.
func (k *apiKey) masked() string {
	if len(k.value) <= 6 {
		return strings.Repeat("*", len(k.value))
	}
	return k.value[:3] + strings.Repeat("*", len(k.value)-6) + k.value[len(k.value)-3:]
}
