package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The floor's provider round trip of a run start, either of two ways. A
// wait of the fake's latency is what the provider costs the server if
// reaching it cost nothing. The reconnect is the call the server's Daytona
// client makes to reconnect a live instance (pkg/provider/daytona
// lifecycle.go Reconnect: GET /sandbox/{id}, its answer decoded), through
// a client made as the server's are (provider.NewHTTPClient: as many
// connections kept alive), so that the floor also pays what reaching the
// provider costs: a connection, a request written, an answer read.
type providerTrip func(ctx context.Context, sb, inst map[string]any) error

// wait is the provider round trip as a wait of its latency.
func (f floor) wait(ctx context.Context, _, _ map[string]any) error {
	select {
	case <-time.After(f.latency):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// floorSandboxAnswer is the part of Daytona's sandbox the reconnect checks.
type floorSandboxAnswer struct {
	ID    string `json:"id"`
	State string `json:"state"`
}

// reconnect asks the sandbox's Daytona for the instance, with the key the
// floor was given, and checks that it is started.
func (f floor) reconnect(ctx context.Context, sb, inst map[string]any) error {
	where := strings.TrimSuffix(fmt.Sprint(sb["url"]), "/") + "/sandbox/" + url.PathEscape(fmt.Sprint(inst["provider_ref"]))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, where, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+f.providerKey)
	res, err := f.provider.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("the provider answered %d: %s", res.StatusCode, body)
	}
	var got floorSandboxAnswer
	if err := json.Unmarshal(body, &got); err != nil {
		return fmt.Errorf("the provider's answer is not a sandbox: %w", err)
	}
	if got.State != "started" {
		return fmt.Errorf("the instance %s is %s, not started", got.ID, got.State)
	}
	return nil
}
