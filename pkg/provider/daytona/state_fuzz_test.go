package daytona

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// FuzzReconnectState feeds Reconnect whatever a control plane might say a
// sandbox's state is, however malformed: it always ends, quickly, with an
// instance or one of the contract's typed errors, and never panics.
func FuzzReconnectState(f *testing.F) {
	for _, s := range []string{"started", "stopped", "archived", "destroyed", "error", "build_failed", "creating",
		"stopping", "resizing", "", "STARTED", "started\x00", `"}`} {
		f.Add(s, s, 200)
	}
	f.Add(`{"id":`, "", 200)
	f.Add("started", "stopped", 409)
	f.Add("started", "", 500)
	// One control plane for every input: it answers with the input of the moment.
	type answer struct {
		state, desired string
		status         int
	}
	var current atomic.Pointer[answer]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := current.Load()
		state, desired, status := a.state, a.desired, a.status
		{
			switch {
			case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/work-dir"):
				_, _ = w.Write([]byte(`{"dir":"/home/daytona"}`))
			case r.Method == http.MethodGet:
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				body := `{"id":"sb-1","state":` + quote(state) + `,"desiredState":` + quote(desired) +
					`,"toolboxProxyUrl":"` + "http://" + r.Host + `/toolbox"}`
				_, _ = w.Write([]byte(body))
			default: // start, and anything else: accepted, nothing changes
				w.WriteHeader(http.StatusOK)
				_, _ = w.Write([]byte(`{"id":"sb-1","state":"starting"}`))
			}
		}
	}))
	defer srv.Close()
	f.Fuzz(func(t *testing.T, state, desired string, status int) {
		if status < 100 || status > 599 {
			status = 200
		}
		current.Store(&answer{state: state, desired: desired, status: status})
		kind := Kind{Waits: Waits{PollFirst: time.Millisecond, PollMax: 2 * time.Millisecond, Settle: 50 * time.Millisecond,
			Retry: 20 * time.Millisecond, Request: time.Second}}
		client, err := kind.Open(provider.Settings{URL: srv.URL + "/api", Secret: "k", Config: DefaultConfig()})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		inst, err := client.Reconnect(ctx, provider.Instance{ID: "sb-1"})
		if ctx.Err() != nil {
			t.Fatalf("reconnect of state %q did not end within its bounds", state)
		}
		if err == nil {
			if inst.ID != "sb-1" {
				t.Fatalf("reconnected to %q", inst.ID)
			}
			return
		}
		var pe *provider.Error
		if !errors.As(err, &pe) {
			t.Fatalf("state %q gave an untyped error: %v", state, err)
		}
	})
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteString(string("0123456789abcdef"[r>>4]))
			b.WriteString(string("0123456789abcdef"[r&0xf]))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
