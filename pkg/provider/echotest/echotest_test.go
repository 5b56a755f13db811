package echotest_test

import (
	"context"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/echotest"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// open returns a client of srv, as the server would make it.
func open(t *testing.T, srv *echotest.Server, token string) provider.Client {
	t.Helper()
	c, err := echotest.Kind{}.Open(provider.Settings{URL: srv.URL, Secret: token, Config: echotest.DefaultConfig()})
	require.NoError(t, err)
	return c
}

func TestConformance(t *testing.T) {
	srv := echotest.NewServer(t)
	providertest.Run(t, open(t, srv, srv.Token))
	providertest.RunLifecycle(t, open(t, srv, srv.Token))
	assert.Zero(t, srv.Instances(), "the suite destroys what it made")
	assert.Greater(t, srv.Calls(echotest.OpGet), srv.StartLooks, "create waited for the instance to be ready")
}

// A create whose answer was lost is found by its label, not made twice.
func TestALostCreateIsFoundByItsLabel(t *testing.T) {
	srv := echotest.NewServer(t)
	c := open(t, srv, srv.Token)
	srv.Faults.Queue(echotest.OpCreate, echotest.LoseAnswer, 1)
	inst, err := c.Create(context.Background(), provider.Labels{Thread: "th-1", Instance: "creation-1"})
	require.NoError(t, err)
	assert.Equal(t, 1, srv.Calls(echotest.OpCreate), "one create")
	assert.Equal(t, 1, srv.Instances(), "one instance")
	assert.Equal(t, 1, srv.Calls(echotest.OpList), "found by listing its label")
	res, err := c.Execute(context.Background(), inst, provider.ExecRequest{Command: "pwd"})
	require.NoError(t, err)
	assert.Equal(t, "/workspace\n", res.Output)

	found, ok, err := c.(provider.Finder).FindCreated(context.Background(), provider.Labels{Instance: "creation-1"})
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, inst.ID, found.ID)
	_, ok, err = c.(provider.Finder).FindCreated(context.Background(), provider.Labels{Instance: "creation-2"})
	require.NoError(t, err)
	assert.False(t, ok, "another creation's instance is not found")
}

// A create refused with an error answer made nothing to look for.
func TestARefusedCreateIsAnError(t *testing.T) {
	srv := echotest.NewServer(t)
	c := open(t, srv, srv.Token)
	srv.Faults.Queue(echotest.OpCreate, echotest.Refuse, 1)
	srv.Faults.Queue(echotest.OpList, echotest.Refuse, 1)
	_, err := c.Create(context.Background(), provider.Labels{Instance: "creation-1"})
	require.ErrorIs(t, err, provider.ErrFailed)
	assert.Contains(t, err.Error(), "create is unavailable")
	assert.Zero(t, srv.Instances())
}

// The server's words are kept, but never the token they repeat.
func TestARefusedTokenIsNotRepeated(t *testing.T) {
	srv := echotest.NewServer(t)
	err := open(t, srv, "not-the-token").Probe(context.Background())
	require.ErrorIs(t, err, provider.ErrUnauthorized)
	assert.Contains(t, err.Error(), "is not known")
	assert.NotContains(t, err.Error(), "not-the-token")
	require.NoError(t, open(t, srv, srv.Token).Probe(context.Background()))
}

// An instance that never gets ready is a timeout, and is not left behind.
func TestAnInstanceThatNeverStartsIsDestroyed(t *testing.T) {
	srv := echotest.NewServer(t)
	srv.StartLooks = 1 << 30
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := open(t, srv, srv.Token).Create(ctx, provider.Labels{})
	require.Error(t, err)
	assert.ErrorIs(t, err, provider.ErrTimeout, "the instance stayed starting, or its last look ran out of time: %v", err)
	assert.Zero(t, srv.Instances(), "the instance was destroyed")
}

func TestConfigIsValidated(t *testing.T) {
	k := echotest.Kind{}
	for value, want := range map[string]string{"": "work_dir", "workspace": "work_dir", "/": "work_dir", "/a/../b": "work_dir", "/srv/work": ""} {
		cfg := echotest.DefaultConfig()
		cfg.WorkDir = value
		var got []string
		for _, fe := range provider.ValidateConfig(k, cfg, provider.Policy{}) {
			got = append(got, fe.Field)
		}
		if want == "" {
			assert.Empty(t, got, "%q", value)
		} else {
			assert.Equal(t, []string{want}, got, "%q", value)
		}
	}
}

// Files are reached in the working folder only, whatever links commands make.
func TestPathsLeadingOutAreRefused(t *testing.T) {
	srv := echotest.NewServer(t)
	c := open(t, srv, srv.Token)
	ctx := context.Background()
	inst, err := c.Create(ctx, provider.Labels{})
	require.NoError(t, err)
	res, err := c.Execute(ctx, inst, provider.ExecRequest{Command: "ln -s /etc out && ln -s /etc/hostname host"})
	require.NoError(t, err)
	require.Equal(t, 0, res.ExitCode, res.Output)
	for _, p := range []string{"/etc/hostname", "/workspace/../etc/hostname", "/workspace/out/hostname", "/workspace/host"} {
		_, err := c.Stat(ctx, inst, p)
		assert.ErrorIs(t, err, provider.ErrPath, p)
		assert.ErrorIs(t, c.WriteFile(ctx, inst, p, []byte("overwritten")), provider.ErrPath, p)
	}
}

func TestConformanceStates(t *testing.T) {
	srv := echotest.NewServer(t)
	providertest.RunStates(t, echotest.Kind{}.Describe(), open(t, srv, srv.Token), serverStates{srv})
}

// serverStates puts the server's instances in the states it has.
type serverStates struct{ *echotest.Server }

func (s serverStates) Pause(_ *testing.T, id string) { s.Restart(id) }
func (s serverStates) Exit(_ *testing.T, id string)  { s.Lose(id) }

func (s serverStates) RefuseCreates(t *testing.T) providertest.Refusal {
	s.Faults.Set(echotest.OpCreate, echotest.Refuse)
	t.Cleanup(func() { s.Faults.Clear() })
	return providertest.Refusal{Kind: provider.ErrFailed, Words: "create is unavailable",
		Asked: func() int { return s.Calls(echotest.OpCreate) }}
}
