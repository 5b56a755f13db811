package deployments

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
)

// directive is one nginx directive, with its block if it has one.
type directive struct {
	name  string
	args  []string
	block []directive
}

// find returns the directives called name, in order.
func find(ds []directive, name string) []directive {
	var out []directive
	for _, d := range ds {
		if d.name == name {
			out = append(out, d)
		}
	}
	return out
}

// blockWith returns the block of the directive called name with exactly args.
func blockWith(ds []directive, name string, args ...string) ([]directive, bool) {
	for _, d := range find(ds, name) {
		if strings.Join(d.args, " ") == strings.Join(args, " ") {
			return d.block, true
		}
	}
	return nil, false
}

// parseNginx parses nginx's configuration syntax: words and quoted strings,
// directives ended by ";" or by a block in braces, "#" comments.
func parseNginx(src string) ([]directive, error) {
	tokens, err := nginxTokens(src)
	if err != nil {
		return nil, err
	}
	ds, rest, err := nginxBlock(tokens, false)
	if err == nil && len(rest) > 0 {
		err = errors.New("unbalanced }")
	}
	return ds, err
}

func nginxTokens(src string) ([]string, error) {
	var tokens []string
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case unicode.IsSpace(rune(c)):
			i++
		case c == ';' || c == '{' || c == '}':
			tokens = append(tokens, string(c))
			i++
		case c == '"' || c == '\'':
			end := strings.IndexByte(src[i+1:], c)
			if end < 0 {
				return nil, fmt.Errorf("unterminated string at byte %d", i)
			}
			// Quoted words keep a marker so that `";"` is not taken for the end.
			tokens = append(tokens, "\x00"+src[i+1:i+1+end])
			i += end + 2
		default:
			j := i
			for j < len(src) && !unicode.IsSpace(rune(src[j])) && !strings.ContainsRune(";{}", rune(src[j])) {
				j++
			}
			tokens = append(tokens, src[i:j])
			i = j
		}
	}
	return tokens, nil
}

func nginxBlock(tokens []string, nested bool) ([]directive, []string, error) {
	var ds []directive
	var words []string
	for len(tokens) > 0 {
		tok := tokens[0]
		tokens = tokens[1:]
		switch tok {
		case ";":
			if len(words) == 0 {
				return nil, nil, errors.New("empty directive")
			}
			ds = append(ds, directive{name: words[0], args: words[1:]})
			words = nil
		case "{":
			if len(words) == 0 {
				return nil, nil, errors.New("block without a name")
			}
			block, rest, err := nginxBlock(tokens, true)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", words[0], err)
			}
			ds = append(ds, directive{name: words[0], args: words[1:], block: block})
			words, tokens = nil, rest
		case "}":
			if !nested || len(words) > 0 {
				return nil, nil, errors.New("unexpected }")
			}
			return ds, tokens, nil
		default:
			words = append(words, strings.TrimPrefix(tok, "\x00"))
		}
	}
	if nested || len(words) > 0 {
		return nil, nil, errors.New("unexpected end of file")
	}
	return ds, nil, nil
}

// nginxDuration reads an nginx time such as 60s, 1h or a bare number of seconds.
func nginxDuration(s string) (time.Duration, error) {
	units := map[string]time.Duration{"ms": time.Millisecond, "s": time.Second, "m": time.Minute, "h": time.Hour, "d": 24 * time.Hour}
	num := strings.TrimRightFunc(s, unicode.IsLetter)
	unit := time.Second
	if suffix := s[len(num):]; suffix != "" {
		u, ok := units[suffix]
		if !ok {
			return 0, fmt.Errorf("unknown time unit in %q", s)
		}
		unit = u
	}
	n, err := strconv.Atoi(num)
	return time.Duration(n) * unit, err
}

type nginxExpect struct {
	listen       uint32 // the container port compose publishes
	upstreamHost string // the server's compose service
	upstreamPort string // the port the server listens on
	healthPath   string // what compose's healthcheck asks
	// securityHeaders are what the server sets on every answer, with their values.
	securityHeaders [][2]string
}

// checkNginx asserts that nginx balances over the server replicas and
// streams their answers: unbuffered, for as long as a command may run.
func checkNginx(t *testing.T, src string, want nginxExpect) {
	t.Helper()
	top, err := parseNginx(src)
	if err != nil {
		t.Fatalf("nginx.conf: %v", err)
	}
	// The file is included in nginx's http block.
	if r := find(top, "resolver"); len(r) != 1 || r[0].args[0] != "127.0.0.11" {
		t.Error("no resolver on Docker's DNS: nginx would not follow recreated replicas")
	}
	up, ok := blockWith(top, "upstream", "auxilia")
	if !ok {
		t.Fatal("no upstream auxilia")
	}
	if len(find(up, "zone")) != 1 {
		t.Error("the upstream has no zone (resolve needs one)")
	}
	servers := find(up, "server")
	if len(servers) != 1 || servers[0].args[0] != want.upstreamHost+":"+want.upstreamPort || !slices.Contains(servers[0].args, "resolve") {
		t.Errorf("upstream servers %+v; want %s:%s resolve (one address per replica)", servers, want.upstreamHost, want.upstreamPort)
	}

	srvs := find(top, "server")
	if len(srvs) != 1 {
		t.Fatalf("%d server blocks; want 1", len(srvs))
	}
	srv := srvs[0].block
	if l := find(srv, "listen"); len(l) != 1 || l[0].args[0] != strconv.Itoa(int(want.listen)) {
		t.Errorf("nginx listens on %+v; compose publishes %d", l, want.listen)
	}
	if b := find(srv, "client_max_body_size"); len(b) != 1 || b[0].args[0] != "0" {
		t.Error("client_max_body_size is not 0: nginx's 1 MB default would refuse uploads the server accepts")
	}
	if _, ok := blockWith(srv, "location", "=", want.healthPath); !ok {
		t.Errorf("no location = %s for the healthcheck", want.healthPath)
	}
	if m, ok := blockWith(srv, "location", "=", "/metrics"); !ok || len(find(m, "return")) != 1 && len(find(m, "deny")) != 1 {
		t.Error("/metrics, which needs no token, is served to the outside")
	}
	checkNginxSecurityHeaders(t, top, srv, want.securityHeaders)
	loc, ok := blockWith(srv, "location", "/")
	if !ok {
		t.Fatal("no location /")
	}
	one := func(name string) string {
		d := find(loc, name)
		if len(d) != 1 || len(d[0].args) != 1 {
			t.Errorf("location /: %s is %+v; want it once", name, d)
			return ""
		}
		return d[0].args[0]
	}
	if got := one("proxy_pass"); got != "http://auxilia" {
		t.Errorf("proxy_pass %s; want http://auxilia", got)
	}
	if one("proxy_buffering") != "off" {
		t.Error("proxy_buffering is on: server-sent events would stall")
	}
	if one("proxy_request_buffering") != "off" {
		t.Error("proxy_request_buffering is on: uploads would be spooled to nginx's disk first")
	}
	if one("proxy_http_version") != "1.1" {
		t.Error("proxy_http_version is not 1.1: no keep-alive to the replicas")
	}
	headers := map[string]string{}
	for _, d := range find(loc, "proxy_set_header") {
		if len(d.args) == 2 {
			headers[d.args[0]] = d.args[1]
		}
	}
	if headers["Host"] != "$http_host" {
		t.Errorf("Host is sent as %q; want $http_host: $host drops the port, and the server compares host and port with a page's Origin", headers["Host"])
	}
	upgrade, ok := blockWith(top, "map", "$http_upgrade", headers["Connection"])
	if headers["Upgrade"] != "$http_upgrade" || !ok || !slices.ContainsFunc(upgrade, func(d directive) bool {
		return d.name == "" && len(d.args) == 1 && d.args[0] == ""
	}) || !slices.ContainsFunc(upgrade, func(d directive) bool { return d.name == "default" && d.args[0] == "upgrade" }) {
		t.Errorf("Upgrade %q, Connection %q: a terminal's WebSocket must go on as an upgrade, and other requests keep their connection alive", headers["Upgrade"], headers["Connection"])
	}
	for _, name := range []string{"proxy_read_timeout", "proxy_send_timeout"} {
		d, err := nginxDuration(one(name))
		if err != nil || d < time.Hour {
			t.Errorf("%s %s (%v); want at least an hour: a command's answer may be that long in coming", name, d, err)
		}
	}
}

// checkNginxSecurityHeaders asserts that nginx passes the server's security
// headers on as they are, and sets the same ones on the answers it makes
// itself (its health, a 404, a 502 when no replica answers): each from a map
// of the server's header that is empty, so that add_header adds nothing,
// when the server sent it.
func checkNginxSecurityHeaders(t *testing.T, top, srv []directive, headers [][2]string) {
	t.Helper()
	if d := find(srv, "server_tokens"); len(d) != 1 || d[0].args[0] != "off" {
		t.Error("server_tokens is not off: every answer names nginx's version")
	}
	maps := map[string]directive{} // by the variable each sets
	for _, m := range find(top, "map") {
		if len(m.args) == 2 {
			maps[m.args[1]] = m
		}
	}
	added := map[string]directive{}
	for _, a := range find(srv, "add_header") {
		added[strings.ToLower(a.args[0])] = a
	}
	for _, h := range headers {
		name, value := h[0], h[1]
		a, ok := added[strings.ToLower(name)]
		if !ok || len(a.args) != 3 || a.args[2] != "always" {
			t.Errorf("the server block does not add %s to every answer of nginx's own (add_header %s $… always)", name, name)
			continue
		}
		m, ok := maps[a.args[1]]
		upstream := "$upstream_http_" + strings.ReplaceAll(strings.ToLower(name), "-", "_")
		if !ok || m.args[0] != upstream {
			t.Errorf("%s is set from %s, not from a map of %s", name, a.args[1], upstream)
			continue
		}
		absent, otherwise := find(m.block, ""), find(m.block, "default")
		if len(absent) != 1 || absent[0].args[0] != value || len(otherwise) != 1 || otherwise[0].args[0] != "" || len(m.block) != 2 {
			t.Errorf("the map of %s is %+v; want %q where the server sent none, else empty", name, m.block, value)
		}
	}
	for _, l := range find(srv, "location") {
		if len(find(l.block, "add_header")) > 0 {
			t.Errorf("location %s adds a header of its own: the server block's security headers no longer apply there", strings.Join(l.args, " "))
		}
		for _, hide := range find(l.block, "proxy_hide_header") {
			if slices.ContainsFunc(headers, func(h [2]string) bool { return strings.EqualFold(h[0], hide.args[0]) }) {
				t.Errorf("location %s hides the server's %s", strings.Join(l.args, " "), hide.args[0])
			}
		}
	}
}

func TestParseNginx(t *testing.T) {
	ds, err := parseNginx("a 1; # comment\nb { c \"x; y\" 2; d { } }\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 || ds[1].block[0].args[0] != "x; y" || ds[1].block[1].name != "d" {
		t.Fatalf("parsed %+v", ds)
	}
	for _, bad := range []string{"a {", "a }", "a", "{ }", `a "b;`} {
		if _, err := parseNginx(bad); err == nil {
			t.Errorf("parsed %q", bad)
		}
	}
	for s, want := range map[string]time.Duration{"86400s": 24 * time.Hour, "1h": time.Hour, "90": 90 * time.Second, "2d": 48 * time.Hour} {
		if got, err := nginxDuration(s); err != nil || got != want {
			t.Errorf("nginxDuration(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
}
