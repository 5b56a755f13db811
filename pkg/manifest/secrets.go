package manifest

import (
	"fmt"
	"strings"
)

// OwnPrefix starts the names of the variables apply reads for itself
// (AUXILIA_URL, AUXILIA_TOKEN, AUXILIA_APPLY_SECRET_PREFIX) and of the
// server's (AUXILIA_BOOTSTRAP_TOKEN, AUXILIA_SECRET_KEYS). A file may name
// none of them in secret_env: it would send apply's admin token, or a key
// of the server, to whatever url the file gives. The whole prefix is
// refused, so that a variable added later is refused too.
const OwnPrefix = "AUXILIA_"

// IsOwn reports whether a variable's name starts with OwnPrefix, in any
// case: Windows reads auxilia_token as AUXILIA_TOKEN.
func IsOwn(name string) bool {
	return len(name) >= len(OwnPrefix) && strings.EqualFold(name[:len(OwnPrefix)], OwnPrefix)
}

// checkSecretEnv reports a secret_env that names one of apply's own
// variables, one outside the operator's prefix, or one that is not set.
// A name refused is never read.
func checkSecretEnv(p *Problems, path, name string, opts Options) {
	switch {
	case name == "":
	case IsOwn(name):
		p.add(path, "names %s, which is never sent: variables starting with %s are apply's and the server's own", name, OwnPrefix)
	case !strings.HasPrefix(name, opts.SecretPrefix):
		p.add(path, "names %s, which does not start with %s (AUXILIA_APPLY_SECRET_PREFIX)", name, opts.SecretPrefix)
	case opts.Getenv(name) == "":
		p.add(path, "names %s, which is not set", name)
	}
}

// destination is the url a sandbox's secret is sent to: url as the server
// reads it ("host:port" is http://host:port), or, when it is left out or
// blank, the provider's default.
func destination(url *string, byDefault string) string {
	if url == nil || strings.TrimSpace(*url) == "" {
		return byDefault
	}
	to := strings.TrimSpace(*url)
	if !strings.Contains(to, "://") {
		to = "http://" + to
	}
	return to
}

// secretFrom is how a plan shows a secret: the variable it is read from and
// the url it goes to, quoted as the file's other values are, so that what a
// file puts in it cannot pass for something else on a terminal. The value
// is never shown.
func secretFrom(env, to string) string {
	if to == "" {
		return "secret from " + env
	}
	return fmt.Sprintf("secret from %s → %q", env, to)
}
