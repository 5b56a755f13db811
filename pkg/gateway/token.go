package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// TokenSource gives the OAuth access token the gateway sends to Cloud Storage.
type TokenSource interface {
	// Token returns a valid access token, or "" to send none.
	Token(ctx context.Context) (string, error)
}

// StaticToken is a fixed token; "" sends no credentials (a local fake needs none).
type StaticToken string

// Token returns the fixed token.
func (t StaticToken) Token(context.Context) (string, error) { return string(t), nil }

// DefaultMetadataURL is the metadata server every Cloud Run instance can reach.
const DefaultMetadataURL = "http://metadata.google.internal"

// MetadataTokenSource gets the service identity's token from the metadata
// server, as Cloud Run provides it, and reuses it until shortly before it expires.
type MetadataTokenSource struct {
	BaseURL string       // DefaultMetadataURL when empty
	HTTP    *http.Client // a short-timeout client when nil

	mu      sync.Mutex
	token   string
	expires time.Time
}

// refreshMargin renews a token this long before it expires, so no call carries a stale one.
const refreshMargin = 2 * time.Minute

// Token returns the cached token or fetches a new one.
func (m *MetadataTokenSource) Token(ctx context.Context) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.token != "" && time.Now().Add(refreshMargin).Before(m.expires) {
		return m.token, nil
	}
	base := m.BaseURL
	if base == "" {
		base = DefaultMetadataURL
	}
	client := m.HTTP
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet,
		base+"/computeMetadata/v1/instance/service-accounts/default/token", nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Metadata-Flavor", "Google")
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("metadata server: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("metadata server answered %s: %s", resp.Status, body)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int    `json:"expires_in"`
		TokenType   string `json:"token_type"`
	}
	if err := json.Unmarshal(body, &tok); err != nil || tok.AccessToken == "" {
		return "", fmt.Errorf("metadata server answered no access token")
	}
	m.token = tok.AccessToken
	m.expires = time.Now().Add(time.Duration(tok.ExpiresIn) * time.Second)
	return m.token, nil
}
