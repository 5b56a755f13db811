package local

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/bubblewrap/nettest"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// testIndex serves, on the test's internet, a package index (PEP 503's
// simple API) that holds one package, tiny; it returns the index's URL.
func testIndex(t *testing.T, far *nettest.Internet) string {
	t.Helper()
	wheel := tinyWheel(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/simple/tiny/", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<!DOCTYPE html><html><body><a href="/files/tiny-0.1-py3-none-any.whl">tiny-0.1-py3-none-any.whl</a></body></html>`)
	})
	mux.HandleFunc("/files/tiny-0.1-py3-none-any.whl", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(wheel) })
	return "http://" + far.ServeOn(t, far.Far, mux) + "/simple/"
}

// pipInstall is how default packages are installed (pkg/run's install),
// from index, over plain HTTP on the test's internet.
func pipInstall(index string, far *nettest.Internet, pkgs string) string {
	return "python3 -m pip install --no-input --disable-pip-version-check --progress-bar off --index-url " + index +
		" --trusted-host " + far.Far.String() + " " + pkgs
}

// An instance with network, under either isolation, installs packages from
// an index on the internet, and still never reaches the host.
func TestANetworkedInstanceInstallsFromAnIndex(t *testing.T) {
	far := nettest.NewInternet(t)
	index := testIndex(t, far)
	hostIP := nettest.HostAddress(t)
	own := nettest.Listen(t, hostIP)
	eachIsolation(t, func(t *testing.T, isolation string) {
		c := newIsolatedClient(t, isolation, func(cfg *Config) { cfg.Network = provider.AllowNetwork() })
		inst := c.create(t)
		res := c.execFor(t, inst, pipInstall(index, far, "tiny"), 3*time.Minute)
		require.Equal(t, 0, res.ExitCode, res.Output)
		res = c.exec(t, inst, "python3 -c 'import tiny; print(tiny.VALUE)'")
		assert.Equal(t, "42\n", res.Output)

		res = c.exec(t, inst, nettest.SendHi(hostIP+":"+own.Port))
		assert.NotEqual(t, 0, res.ExitCode, res.Output)
		own.AssertHeardNothing(t)
	})
}

// The install of the default packages reaches the operator's index
// whatever the sandbox's rules, and nothing else; then the rules apply.
func TestTheDefaultPackagesInstallReachesTheIndexAlone(t *testing.T) {
	far := nettest.NewInternet(t)
	index := testIndex(t, far)
	other := far.ServeOn(t, far.Another(t), nettest.Text("elsewhere"))
	eachIsolation(t, func(t *testing.T, isolation string) {
		c := newIsolatedClient(t, isolation, func(cfg *Config) { cfg.DefaultPackages = []string{"tiny"} })
		require.True(t, c.config.Network.Offline(), "the local default: nothing goes out")
		c.index = packageIndex{index}
		inst := c.create(t)

		// pkg/run's install, and a try elsewhere in the same command.
		res, err := c.Execute(t.Context(), inst, provider.ExecRequest{Install: true, Timeout: 3 * time.Minute,
			Command: "python3 -m pip install --no-input --disable-pip-version-check --progress-bar off tiny && " + nettest.SendHi(other)})
		require.NoError(t, err)
		assert.Contains(t, res.Output, "Successfully installed tiny-0.1", "pip reached the index")
		assert.NotEqual(t, 0, res.ExitCode, "and nothing else: %s", res.Output)

		res = c.exec(t, inst, "python3 -c 'import tiny; print(tiny.VALUE)'")
		assert.Equal(t, "42\n", res.Output)
		res = c.exec(t, inst, nettest.Fetch(index[len("http://"):len(index)-len("simple/")]+"simple/tiny/"))
		assert.NotEqual(t, 0, res.ExitCode, "after the install, the sandbox's rules: %s", res.Output)
		res = c.exec(t, inst, "pip download --retries 0 --timeout 3 --no-deps -d /tmp tiny")
		assert.NotEqual(t, 0, res.ExitCode, "pip is not pointed at the index after it either: %s", res.Output)
	})
}
