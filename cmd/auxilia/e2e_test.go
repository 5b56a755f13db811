package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/local/localtest"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "auxilia-e2e-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "auxilia")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build auxilia:", err)
		os.Exit(1)
	}
	code := m.Run()
	if code == 0 && !logsKeepSecrets() {
		code = 1
	}
	os.RemoveAll(dir)
	localtest.Remove()
	os.Exit(code)
}

var (
	started   []*server
	secretsMu sync.Mutex
	// secrets are values that no server's log may hold: the tokens, keys and
	// provider secrets the tests use (a generated token has its own pattern).
	secrets = []string{adminToken, "aux_LetMeIn0123456789abcdefghijklmnopqrstuvwxyz", "aux_AdminToken0123456789abcdefghijklmnopqrstuvw", "aux_ReadmeAdminToken0123456789abcdefghijklmnopq",
		"osk-e2e-key-0123456789", "osk-metrics-secret-0123456789", "osk-team-0123456789", "dtn_0123456789abcdefWXYZ",
		"gateway-secret-0123456789", "dtn_secret_value_0001", "dtn_not-the-key-0000", "dtn_test_key"}
	generatedToken = regexp.MustCompile(`aux_[A-Za-z0-9_-]{43}`)
)

// noLeak adds values no log may hold.
func noLeak(values ...string) {
	secretsMu.Lock()
	defer secretsMu.Unlock()
	secrets = append(secrets, values...)
}

// logsKeepSecrets scans the logs of every server the tests started (the
// first-start banner on standard output is the one place a token is shown).
func logsKeepSecrets() bool {
	secretsMu.Lock()
	defer secretsMu.Unlock()
	clean := true
	for _, s := range started {
		s.mu.Lock()
		logs := s.stderr.String()
		s.mu.Unlock()
		for _, v := range secrets {
			if strings.Contains(logs, v) {
				fmt.Fprintf(os.Stderr, "a server's log holds the secret %.6s…\n", v)
				clean = false
			}
		}
		if m := generatedToken.FindString(logs); m != "" {
			fmt.Fprintf(os.Stderr, "a server's log holds the token %.8s…\n", m)
			clean = false
		}
	}
	return clean
}

// server is the real binary running `serve`.
type server struct {
	URL    string
	cmd    *exec.Cmd
	mu     sync.Mutex
	stdout strings.Builder
	stderr strings.Builder
	done   chan error
}

var listening = regexp.MustCompile(`"msg":"listening","url":"(http://[^"]+)"`)

// startServer runs the binary with env (on top of a fresh data folder and a
// free port) and waits until it listens.
func startServer(t *testing.T, env ...string) *server {
	t.Helper()
	return startCommand(t, exec.Command(binary, "serve"), env...)
}

// startCommand is startServer running cmd, which serves by executing the binary.
func startCommand(t *testing.T, cmd *exec.Cmd, env ...string) *server {
	t.Helper()
	cmd.Env = append(os.Environ(), "AUXILIA_LISTEN=127.0.0.1:0")
	cmd.Env = append(cmd.Env, env...)
	s := &server{cmd: cmd, done: make(chan error, 1)}
	secretsMu.Lock()
	started = append(started, s)
	secretsMu.Unlock()
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	urls := make(chan string, 1)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); s.copy(stdout, &s.stdout, nil) }()
	go func() { defer wg.Done(); s.copy(stderr, &s.stderr, urls) }()
	go func() { wg.Wait(); s.done <- cmd.Wait() }()
	t.Cleanup(func() { s.stop(t) })
	select {
	case s.URL = <-urls:
	case err := <-s.done:
		t.Fatalf("server exited before listening (%v): %s", err, s.logs())
	case <-time.After(60 * time.Second):
		t.Fatalf("server did not listen within a minute: %s", s.logs())
	}
	return s
}

func (s *server) copy(r io.Reader, into *strings.Builder, urls chan<- string) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		s.mu.Lock()
		into.WriteString(line + "\n")
		s.mu.Unlock()
		if m := listening.FindStringSubmatch(line); m != nil && urls != nil {
			urls <- m[1]
			urls = nil
		}
	}
}

func (s *server) logs() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return "stdout:\n" + s.stdout.String() + "stderr:\n" + s.stderr.String()
}

func (s *server) Stdout() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stdout.String()
}

// waitFor waits until the server has written text (on either stream).
func (s *server) waitFor(t *testing.T, text string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if strings.Contains(s.logs(), text) {
			return
		}
	}
	t.Fatalf("the server never wrote %q: %s", text, s.logs())
}

func (s *server) stop(t *testing.T) {
	if s.cmd.ProcessState != nil {
		return
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		t.Errorf("server did not stop on SIGINT: %s", s.logs())
	}
}

// get calls the API with a token and decodes the JSON answer.
func get(t *testing.T, url, tok string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	require.NoError(t, err)
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var body map[string]any
	_ = json.NewDecoder(res.Body).Decode(&body)
	return res.StatusCode, body
}

// cli runs the binary with args and env, returning its standard output.
func cli(t *testing.T, env []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "auxilia %v: %s", args, stderr.String())
	return string(out)
}

var bannerToken = regexp.MustCompile(`(?m)^\s+(aux_[A-Za-z0-9_-]{43})$`)

func TestFirstStartPrintsTheBannerOnce(t *testing.T) {
	data := t.TempDir()
	env := []string{"AUXILIA_DATA_DIR=" + data, "DATABASE_URL=", "AUXILIA_BOOTSTRAP_TOKEN="}
	srv := startServer(t, env...)
	srv.waitFor(t, "makes another.") // the banner's last line: the token is all there
	m := bannerToken.FindStringSubmatch(srv.Stdout())
	require.NotNil(t, m, "banner with a token on stdout: %s", srv.logs())
	tok := m[1]
	assert.Contains(t, srv.Stdout(), srv.URL)
	assert.NotContains(t, srv.logs()[strings.Index(srv.logs(), "stderr:"):], tok, "the token is never logged")

	status, me := get(t, srv.URL+"/api/v1/me", tok)
	require.Equal(t, 200, status)
	assert.Equal(t, "admin", me["role"])
	assert.Equal(t, "default", me["workspace"].(map[string]any)["name"])

	// The CLI issues a token beside the running server; it works at once.
	member := strings.TrimSpace(cli(t, env, "tokens", "create", "--workspace", "default", "--role", "member", "--name", "laptop"))
	status, me = get(t, srv.URL+"/api/v1/me", member)
	require.Equal(t, 200, status)
	assert.Equal(t, "member", me["role"])
	assert.Equal(t, "laptop", me["name"])

	srv.stop(t)
	again := startServer(t, env...)
	assert.NotContains(t, again.Stdout(), "aux_", "a second start prints no token")
	status, _ = get(t, again.URL+"/api/v1/me", tok)
	assert.Equal(t, 200, status)
}

func TestBootstrapTokenOnPostgres(t *testing.T) {
	url := storetest.NewEmptyPostgresDatabase(t)
	env := []string{"DATABASE_URL=" + url, "AUXILIA_DATA_DIR=" + t.TempDir(), "AUXILIA_BOOTSTRAP_TOKEN=aux_LetMeIn0123456789abcdefghijklmnopqrstuvwxyz"}
	assert.Contains(t, cli(t, env, "migrate"), "database schema at version")

	refused := exec.Command(binary, "serve")
	refused.Env = append(os.Environ(), append(env, "AUXILIA_SECRET_KEYS=")...)
	out, err := refused.CombinedOutput()
	require.Error(t, err, "Postgres without secret keys is refused")
	assert.Contains(t, string(out), "AUXILIA_SECRET_KEYS is required with Postgres")

	key := strings.TrimSpace(cli(t, nil, "keys", "generate"))
	noLeak(key)
	env = append(env, "AUXILIA_SECRET_KEYS="+key)
	srv := startServer(t, env...)
	assert.NotContains(t, srv.Stdout(), "aux_", "no banner when the operator chose the token")
	status, me := get(t, srv.URL+"/api/v1/me", "aux_LetMeIn0123456789abcdefghijklmnopqrstuvwxyz")
	require.Equal(t, 200, status)
	assert.Equal(t, "admin", me["role"])

	other := strings.TrimSpace(cli(t, env, "tokens", "create", "--workspace", "acme", "--role", "admin"))
	status, me = get(t, srv.URL+"/api/v1/workspace", other)
	require.Equal(t, 200, status)
	assert.Equal(t, "acme", me["name"])
}

func TestBadConfigurationIsRefused(t *testing.T) {
	cmd := exec.Command(binary, "serve")
	cmd.Env = append(os.Environ(), "DATABASE_URL=mysql://x", "AUXILIA_JSON_BODY_LIMIT=lots",
		"AUXILIA_ALLOWED_ORIGINS=https://console.example.com,null,https://tools.example.com/app")
	out, err := cmd.CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), "DATABASE_URL")
	assert.Contains(t, string(out), "AUXILIA_JSON_BODY_LIMIT", "every bad variable at once")
	assert.Contains(t, string(out), `AUXILIA_ALLOWED_ORIGINS: "null" cannot be allowed`)
	assert.Contains(t, string(out), `AUXILIA_ALLOWED_ORIGINS: "https://tools.example.com/app" must be scheme://host[:port]`)

	cmd = exec.Command(binary, "tokens", "create", "--role", "owner")
	cmd.Env = append(os.Environ(), "AUXILIA_DATA_DIR="+t.TempDir(), "DATABASE_URL=")
	out, err = cmd.CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), "role")
}

func TestWeakBootstrapTokenIsRefused(t *testing.T) {
	for _, weak := range []string{"x", "let-me-in-0123456789", "aux_0123456789abcdef", "aux_" + strings.Repeat("a", 43)} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		cmd := exec.CommandContext(ctx, binary, "serve")
		cmd.Env = append(os.Environ(), "AUXILIA_DATA_DIR="+t.TempDir(), "DATABASE_URL=", "AUXILIA_LISTEN=127.0.0.1:0",
			"AUXILIA_BOOTSTRAP_TOKEN="+weak)
		out, err := cmd.CombinedOutput()
		cancel()
		require.NotErrorIs(t, ctx.Err(), context.DeadlineExceeded, "%s: the server started instead of refusing", weak)
		require.Error(t, err, "%s: the server refuses to start", weak)
		assert.Contains(t, string(out), "AUXILIA_BOOTSTRAP_TOKEN must look like the tokens the server makes: aux_ followed by 43 URL-safe base64 characters")
		if len(weak) > 1 {
			assert.NotContains(t, string(out), weak, "the message never echoes the value")
		}
	}
}
