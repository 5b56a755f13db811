// Package ssotest runs a real OpenID provider (panva's certified
// oidc-provider, on Node.js) on loopback for tests, and signs people in
// through its own login and consent pages as a browser would.
package ssotest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/sso"
	"github.com/stretchr/testify/require"
)

// ClientID and ClientSecret are the provider's one client.
const (
	ClientID     = "auxilia"
	ClientSecret = "test-client-secret-not-for-use"
)

// startWithin bounds the provider's start.
const startWithin = 2 * time.Minute

// Account is a test person's claims.
type Account struct {
	Email  string   `json:"email"`
	Name   string   `json:"name"`
	Groups []string `json:"groups"`
}

// IdP is a running provider.
type IdP struct {
	t      *testing.T
	Issuer string
}

func folder() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", "idp")
}

// install installs the provider's pinned package into dir when it is
// missing (make test-deps installs it first). Test binaries of several
// packages start providers at once: the first installs under a lock on the
// folder while the others wait, as npm ci empties node_modules first.
func install(t *testing.T, dir string) {
	t.Helper()
	lock, err := os.OpenFile(filepath.Join(dir, ".install.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	require.NoError(t, err)
	defer lock.Close()
	require.NoError(t, syscall.Flock(int(lock.Fd()), syscall.LOCK_EX))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "oidc-provider", "package.json")); err == nil {
		return
	}
	out, err := exec.Command("npm", "ci", "--prefix", dir, "--no-audit", "--no-fund").CombinedOutput()
	require.NoError(t, err, "install the test provider: %s", out)
}

// Start runs the provider with accounts (by subject), its client sending
// people back to redirectURI. It installs the provider's pinned package
// first when it is missing.
func Start(t *testing.T, redirectURI string, accounts map[string]Account) *IdP {
	t.Helper()
	dir := folder()
	install(t, dir)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	js, err := json.Marshal(accounts)
	require.NoError(t, err)
	cmd := exec.Command("node", "server.mjs", fmt.Sprint(port), redirectURI, ClientSecret, string(js))
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("the test provider's log:\n%s", stderr.String())
		}
	})
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if issuer, ok := strings.CutPrefix(sc.Text(), "ready "); ok {
				ready <- issuer
			}
		}
	}()
	// Its start makes an RSA key, whose time has a long tail on a busy
	// machine: the wait is long, and ends as soon as the provider dies.
	select {
	case issuer := <-ready:
		return &IdP{t: t, Issuer: issuer}
	case <-exited:
		t.Fatalf("the test provider exited before it was ready: %v", cmd.ProcessState)
	case <-time.After(startWithin):
		t.Fatalf("the test provider did not start within %v", startWithin)
	}
	return nil
}

// Config is single sign-on with this provider, groups mapped as given.
func (p *IdP) Config(redirectURI string, groups sso.GroupRoles) sso.Config {
	return sso.Config{Issuer: p.Issuer, ClientID: ClientID, ClientSecret: ClientSecret, RedirectURL: redirectURI,
		ProviderName: "Test IdP", Scopes: strings.Fields(sso.DefaultScopes), GroupsClaim: sso.DefaultGroupsClaim,
		Groups: groups, Lifetime: sso.DefaultLifetime, Idle: sso.DefaultIdle, Refresh: sso.DefaultRefresh}
}

// SetAccount sets a person's claims at the provider.
func (p *IdP) SetAccount(subject string, a Account) {
	p.t.Helper()
	js, _ := json.Marshal(a)
	p.control(http.MethodPut, subject, bytes.NewReader(js))
}

// RotateKeys makes the provider sign with a new key from now on, as a
// provider rotating its keys does; its earlier sign-ins and grants are lost.
func (p *IdP) RotateKeys() {
	p.t.Helper()
	res, err := http.Post(p.Issuer+"/test/rotate-keys", "", nil)
	require.NoError(p.t, err)
	res.Body.Close()
	require.Equal(p.t, http.StatusNoContent, res.StatusCode)
}

// KeyIDs are the kids of the keys the provider's JWKS lists now.
func (p *IdP) KeyIDs() []string {
	p.t.Helper()
	get := func(url string, into any) {
		res, err := http.Get(url)
		require.NoError(p.t, err)
		defer res.Body.Close()
		require.NoError(p.t, json.NewDecoder(res.Body).Decode(into))
	}
	var discovery struct {
		JWKSURI string `json:"jwks_uri"`
	}
	get(p.Issuer+"/.well-known/openid-configuration", &discovery)
	var jwks struct {
		Keys []struct {
			Kid string `json:"kid"`
		} `json:"keys"`
	}
	get(discovery.JWKSURI, &jwks)
	var out []string
	for _, k := range jwks.Keys {
		out = append(out, k.Kid)
	}
	return out
}

// DeleteAccount removes a person from the provider, as one who left.
func (p *IdP) DeleteAccount(subject string) {
	p.t.Helper()
	p.control(http.MethodDelete, subject, nil)
}

func (p *IdP) control(method, subject string, body io.Reader) {
	req, err := http.NewRequest(method, p.Issuer+"/test/accounts/"+url.PathEscape(subject), body)
	require.NoError(p.t, err)
	res, err := http.DefaultClient.Do(req)
	require.NoError(p.t, err)
	res.Body.Close()
	require.Equal(p.t, http.StatusNoContent, res.StatusCode)
}

// Browser is an HTTP client with cookies, as a browser signing in.
func Browser(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &http.Client{Jar: jar, Timeout: 30 * time.Second}
}

var formAction = regexp.MustCompile(`<form[^>]*action="([^"]+)"`)

// SignIn signs subject in at server (its base URL) through the provider's
// own login and consent forms, and returns the answer of the server's
// callback (not followed further). The browser keeps the cookies.
func SignIn(t *testing.T, browser *http.Client, server, subject string) *http.Response {
	t.Helper()
	client := *browser
	client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), server) && req.URL.Path != "/auth/oidc/callback" {
			return http.ErrUseLastResponse // the callback's own redirect: stop there
		}
		return nil
	}
	res := throughForms(t, &client, server+"/auth/oidc/login", subject, func(u *url.URL) bool {
		return strings.HasPrefix(u.String(), server+"/auth/oidc/callback")
	})
	return res
}

// Authorize sends the browser to authURL and through the provider's forms
// as subject, and returns the code and state the provider sends back to
// redirectURI (which is not called).
func Authorize(t *testing.T, browser *http.Client, authURL, redirectURI, subject string) (code, state string) {
	t.Helper()
	client := *browser
	client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), redirectURI) {
			return http.ErrUseLastResponse
		}
		return nil
	}
	res := throughForms(t, &client, authURL, subject, func(u *url.URL) bool { return false })
	res.Body.Close()
	to, err := res.Location()
	require.NoError(t, err, "the provider did not send the browser back (%d)", res.StatusCode)
	require.True(t, strings.HasPrefix(to.String(), redirectURI), "sent to %s", to)
	return to.Query().Get("code"), to.Query().Get("state")
}

// throughForms opens start and submits the provider's login (as subject)
// and consent forms until a redirect is not followed, or an answer comes
// from a URL done accepts.
func throughForms(t *testing.T, client *http.Client, start, subject string, done func(*url.URL) bool) *http.Response {
	t.Helper()
	page := get(t, client, start)
	for step := 0; step < 4; step++ {
		if done(page.Request.URL) || (page.StatusCode >= 300 && page.StatusCode < 400) {
			return page
		}
		body, err := io.ReadAll(page.Body)
		page.Body.Close()
		require.NoError(t, err)
		m := formAction.FindSubmatch(body)
		require.NotNil(t, m, "no form on %s (%d): %s", page.Request.URL, page.StatusCode, body)
		action, err := page.Request.URL.Parse(html.UnescapeString(string(m[1])))
		require.NoError(t, err)
		form := url.Values{"prompt": {"consent"}}
		if strings.Contains(string(body), `name="login"`) {
			form = url.Values{"prompt": {"login"}, "login": {subject}, "password": {"any"}}
		}
		page, err = client.PostForm(action.String(), form)
		require.NoError(t, err)
	}
	t.Fatal("the provider never sent the browser back")
	return nil
}

func get(t *testing.T, c *http.Client, u string) *http.Response {
	t.Helper()
	res, err := c.Get(u)
	require.NoError(t, err)
	return res
}

// Groups maps each group to one grant, for tests: "group" → workspace:role.
func Groups(entries map[string]string) sso.GroupRoles {
	var parts []string
	for g, grant := range entries {
		parts = append(parts, g+"="+grant)
	}
	out, err := sso.ParseGroupRoles(strings.Join(parts, ","))
	if err != nil {
		panic(err)
	}
	return out
}
