package api_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/local"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// one valid sandbox of each provider, as the README registers them.
var validSandboxes = map[string]map[string]any{
	"opensandbox": {"name": "Team OpenSandbox", "provider": "opensandbox", "url": "sandbox.internal:8083",
		"secret": "osk-0123456789abcdef", "config": map[string]any{"default_packages": []string{"pandas==2.2.*"}, "volume_mounts": []string{"/srv/data:/data:ro"}}},
	"daytona":  {"name": "Daytona", "provider": "daytona", "secret": "dtn_0123456789abcdefWXYZ"},
	"cloudrun": {"name": "Cloud Run", "provider": "cloudrun", "url": "https://gateway-abc-uc.a.run.app", "secret": "gw-0123456789abcd", "config": map[string]any{"gcs_bucket": "acme-sandboxes"}},
	"local":    {"name": "Local", "provider": "local", "description": "On this server"},
}

func (e *env) createSandbox(body map[string]any) map[string]any {
	e.t.Helper()
	r := e.call("POST", "/api/v1/sandboxes", e.admin, body)
	require.Equal(e.t, 201, r.StatusCode, "%s", r.body)
	return r.json(e.t)
}

// withDefaultLifecycle adds the lifecycle and warm pool keys of a new
// sandbox to its config: it pauses never, keeps files until expiry, and
// has no pool.
func withDefaultLifecycle(config map[string]any) map[string]any {
	config["idle_minutes"], config["keep_files"], config["max_kept_days"] = float64(0), "until_expiry", float64(7)
	config["pool"] = defaultPool
	return config
}

// defaultPool is the warm pool of a sandbox that sets none: off.
var defaultPool = map[string]any{"size": float64(0), "max_idle_minutes": float64(60)}

func TestRegisterEachProviderWithDefaults(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		os := e.createSandbox(validSandboxes["opensandbox"])
		assert.Equal(t, "http://sandbox.internal:8083", os["url"], "host:port means http")
		assert.Equal(t, true, os["has_secret"])
		assert.Equal(t, withDefaultLifecycle(map[string]any{"default_image": "python:3.12-slim", "volume_mounts": []any{"/srv/data:/data:ro"},
			"use_server_proxy": true, "gpu": float64(0), "execd_token_is_api_key": false,
			"default_packages": []any{"pandas==2.2.*"}, "timeout": float64(1800),
			"network": map[string]any{"default": "allow", "allow": []any{}, "deny": []any{}}, "resources": map[string]any{"cpu": float64(1), "memory_mb": float64(2048), "disk_mb": float64(0)}}), os["config"])
		assert.Equal(t, "unknown", os["health"].(map[string]any)["status"])

		dt := e.createSandbox(validSandboxes["daytona"])
		assert.Equal(t, "https://app.daytona.io/api", dt["url"], "Daytona's URL has a default")
		assert.Equal(t, withDefaultLifecycle(map[string]any{"target": "us", "snapshot": "", "auto_stop_interval": float64(15),
			"auto_archive_interval": float64(10080), "env": map[string]any{},
			"default_packages": []any{}, "timeout": float64(1800), "network": map[string]any{"default": "allow", "allow": []any{}, "deny": []any{}}, "resources": map[string]any{"cpu": float64(0), "memory_mb": float64(0), "disk_mb": float64(0)}}), dt["config"])

		cr := e.createSandbox(validSandboxes["cloudrun"])
		assert.Equal(t, withDefaultLifecycle(map[string]any{"gcs_bucket": "acme-sandboxes", "snapshot_prefix": "sandbox-snapshots/",
			"default_packages": []any{}, "timeout": float64(1800), "network": map[string]any{"default": "deny", "allow": []any{}, "deny": []any{}}, "resources": map[string]any{"cpu": float64(0), "memory_mb": float64(0), "disk_mb": float64(0)}}), cr["config"])

		lo := e.createSandbox(validSandboxes["local"])
		assert.Equal(t, "", lo["url"])
		assert.Equal(t, false, lo["has_secret"])
		assert.Equal(t, withDefaultLifecycle(map[string]any{"max_processes": float64(256), "isolation": "bubblewrap",
			"default_packages": []any{}, "timeout": float64(1800), "network": map[string]any{"default": "deny", "allow": []any{}, "deny": []any{}}, "resources": map[string]any{"cpu": float64(0), "memory_mb": float64(1024), "disk_mb": float64(1024)}}), lo["config"])

		got := e.call("GET", "/api/v1/sandboxes/"+os["id"].(string), e.member, nil)
		require.Equal(t, 200, got.StatusCode)
		read := got.json(t)
		assert.Equal(t, map[string]any{"state": "off", "size": float64(0), "ready": float64(0), "creating": float64(0),
			"failures": float64(0), "detail": "", "retry_at": nil}, read["pool"], "a read shows the pool; a sandbox without one has it off")
		delete(read, "pool")
		assert.Equal(t, os, read, "members read sandboxes; a read shows what the create answered")
		assert.Equal(t, `"1"`, got.Header.Get("ETag"))
		assert.Len(t, e.call("GET", "/api/v1/sandboxes", e.member, nil).json(t)["items"], 4)
		named := e.call("GET", "/api/v1/sandboxes?name=Daytona", e.member, nil).json(t)["items"].([]any)
		require.Len(t, named, 1)
		assert.Equal(t, dt["id"], named[0].(map[string]any)["id"])
	})
}

func TestValidationRules(t *testing.T) {
	with := func(provider string, changes map[string]any) map[string]any {
		body := map[string]any{}
		for k, v := range validSandboxes[provider] {
			body[k] = v
		}
		for k, v := range changes {
			if v == nil {
				delete(body, k)
			} else {
				body[k] = v
			}
		}
		return body
	}
	config := func(provider string, cfg map[string]any) map[string]any {
		return with(provider, map[string]any{"config": cfg})
	}
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"name missing", with("local", map[string]any{"name": nil}), "name"},
		{"name blank", with("local", map[string]any{"name": "   "}), "name"},
		{"name too long", with("local", map[string]any{"name": strings.Repeat("n", 256)}), "name"},
		{"name with a line break", with("local", map[string]any{"name": "a\nb"}), "name"},
		{"description too long", with("local", map[string]any{"description": strings.Repeat("d", 256)}), "description"},
		{"provider missing", with("local", map[string]any{"provider": nil}), "provider"},
		{"provider unknown", with("local", map[string]any{"provider": "docker"}), "provider"},
		{"url missing", with("opensandbox", map[string]any{"url": nil}), "url"},
		{"url scheme", with("opensandbox", map[string]any{"url": "ftp://sandbox.internal"}), "url"},
		{"url userinfo", with("opensandbox", map[string]any{"url": "http://admin:pw@sandbox.internal:8083"}), "url"},
		{"url query", with("opensandbox", map[string]any{"url": "http://sandbox.internal/?x=1"}), "url"},
		{"url bad port", with("opensandbox", map[string]any{"url": "sandbox.internal:99999"}), "url"},
		{"url metadata ip", with("opensandbox", map[string]any{"url": "http://169.254.169.254/latest"}), "url"},
		{"url metadata name", with("opensandbox", map[string]any{"url": "metadata.google.internal:80"}), "url"},
		{"url metadata ipv6", with("opensandbox", map[string]any{"url": "http://[fd00:ec2::254]/"}), "url"},
		{"url mapped metadata", with("opensandbox", map[string]any{"url": "http://[::ffff:169.254.169.254]/"}), "url"},
		{"url decimal metadata", with("opensandbox", map[string]any{"url": "http://2852039166/"}), "url"},
		{"url hex metadata", with("opensandbox", map[string]any{"url": "http://0xa9fea9fe/"}), "url"},
		{"local url", with("local", map[string]any{"url": "http://x"}), "url"},
		{"local secret", with("local", map[string]any{"secret": "abc"}), "secret"},
		{"daytona secret missing", with("daytona", map[string]any{"secret": nil}), "secret"},
		{"cloudrun secret missing", with("cloudrun", map[string]any{"secret": nil}), "secret"},
		{"secret with a line break", with("daytona", map[string]any{"secret": "abc\ndef"}), "secret"},
		{"secret too long", with("daytona", map[string]any{"secret": strings.Repeat("s", 4097)}), "secret"},
		{"timeout zero", config("local", map[string]any{"timeout": 0}), "config.timeout"},
		{"timeout over a day", config("daytona", map[string]any{"timeout": 86401}), "config.timeout"},
		{"cloudrun timeout over an hour", config("cloudrun", map[string]any{"timeout": 3601}), "config.timeout"},
		{"timeout a string", config("local", map[string]any{"timeout": "30"}), "config.timeout"},
		{"unknown config key", config("local", map[string]any{"gpu": true}), "config.gpu"},
		{"config not an object", with("local", map[string]any{"config": []string{"x"}}), "config"},
		{"package with a shell", config("opensandbox", map[string]any{"default_packages": []string{"pandas; rm -rf /"}}), "config.default_packages.0"},
		{"package substitution", config("opensandbox", map[string]any{"default_packages": []string{"ok==1", "$(id)"}}), "config.default_packages.1"},
		{"package option", config("opensandbox", map[string]any{"default_packages": []string{"--index-url=http://evil"}}), "config.default_packages.0"},
		{"package url", config("opensandbox", map[string]any{"default_packages": []string{"x @ https://evil/x.whl"}}), "config.default_packages.0"},
		{"packages not a list", config("opensandbox", map[string]any{"default_packages": "pandas"}), "config.default_packages"},
		{"cloud run packages without network", config("cloudrun", map[string]any{"default_packages": []string{"pandas"}}), "config.default_packages"},
		{"image with spaces", config("opensandbox", map[string]any{"default_image": "python 3"}), "config.default_image"},
		{"image with a shell", config("opensandbox", map[string]any{"default_image": "python:3.12;id"}), "config.default_image"},
		{"image empty", config("opensandbox", map[string]any{"default_image": ""}), "config.default_image"},
		{"mount relative", config("opensandbox", map[string]any{"volume_mounts": []string{"data:/data"}}), "config.volume_mounts.0"},
		{"mount root", config("opensandbox", map[string]any{"volume_mounts": []string{"/:/host"}}), "config.volume_mounts.0"},
		{"mount etc", config("opensandbox", map[string]any{"volume_mounts": []string{"/etc/ssl:/ssl:ro"}}), "config.volume_mounts.0"},
		{"mount proc", config("opensandbox", map[string]any{"volume_mounts": []string{"/proc:/p"}}), "config.volume_mounts.0"},
		{"mount docker socket", config("opensandbox", map[string]any{"volume_mounts": []string{"/var/run/docker.sock:/var/run/docker.sock"}}), "config.volume_mounts.0"},
		{"mount dot dot", config("opensandbox", map[string]any{"volume_mounts": []string{"/srv/../root:/r"}}), "config.volume_mounts.0"},
		{"mount not normalised", config("opensandbox", map[string]any{"volume_mounts": []string{"/srv//data/:/d"}}), "config.volume_mounts.0"},
		{"mount bad mode", config("opensandbox", map[string]any{"volume_mounts": []string{"/srv/data:/data:rx"}}), "config.volume_mounts.0"},
		{"mount sandbox path twice", config("opensandbox", map[string]any{"volume_mounts": []string{"/srv/a:/data", "/srv/b:/data"}}), "config.volume_mounts.1"},
		{"target with spaces", config("daytona", map[string]any{"target": "US East"}), "config.target"},
		{"auto stop negative", config("daytona", map[string]any{"auto_stop_interval": -1}), "config.auto_stop_interval"},
		{"snapshot with a shell", config("daytona", map[string]any{"snapshot": "img;id"}), "config.snapshot"},
		{"bucket uppercase", config("cloudrun", map[string]any{"gcs_bucket": "Acme_Sandboxes"}), "config.gcs_bucket"},
		{"bucket google", config("cloudrun", map[string]any{"gcs_bucket": "goog-sandboxes"}), "config.gcs_bucket"},
		{"prefix escapes", config("cloudrun", map[string]any{"snapshot_prefix": "../x/"}), "config.snapshot_prefix"},
		{"memory too small", config("local", map[string]any{"resources": map[string]any{"memory_mb": 1}}), "config.resources.memory_mb"},
		{"memory too small, by an older key", config("local", map[string]any{"memory_mb": 1}), "config.resources.memory_mb"},
		{"egress target not a host", config("local", map[string]any{"network": map[string]any{"allow": []string{"pypi.org", "http://x"}}}), "config.network.allow.1"},
		{"egress default unknown", config("local", map[string]any{"network": map[string]any{"default": "block"}}), "config.network.default"},
		{"egress key unknown", config("local", map[string]any{"network": map[string]any{"allowed": []string{}}}), "config.network.allowed"},
		{"egress by address on opensandbox", config("opensandbox", map[string]any{"network": map[string]any{"default": "deny", "allow": []string{"198.51.100.0/24"}}}), "config.network.allow.0"},
		{"egress by domain on daytona", config("daytona", map[string]any{"network": map[string]any{"default": "deny", "allow": []string{"pypi.org"}}}), "config.network.allow.0"},
		{"cpu on local past the provider's bound", config("local", map[string]any{"resources": map[string]any{"cpu": 100}}), "config.resources.cpu"},
		{"cpu not a number", config("opensandbox", map[string]any{"resources": map[string]any{"cpu": "2"}}), "config.resources.cpu"},
		{"env name", config("daytona", map[string]any{"env": map[string]any{"A-B": "x"}}), "config.env.A-B"},
		{"processes too many", config("local", map[string]any{"max_processes": 100000}), "config.max_processes"},
	}
	eachDB(t, func(t *testing.T, e *env) {
		for _, c := range cases {
			r := e.call("POST", "/api/v1/sandboxes", e.admin, c.body)
			p := r.problem(t, 422, "validation_failed")
			assert.Contains(t, fields(p), c.field, "%s: %s", c.name, r.body)
		}
		assert.Empty(t, e.call("GET", "/api/v1/sandboxes", e.admin, nil).json(t)["items"], "nothing invalid was saved")
	})
}

func TestEveryBrokenFieldAtOnce(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		p := e.call("POST", "/api/v1/sandboxes", e.admin, map[string]any{
			"name": "", "provider": "opensandbox", "url": "http://169.254.169.254",
			"config": map[string]any{"timeout": 0, "default_image": "Bad Image", "volume_mounts": []string{"/etc:/x", "/srv:/y"},
				"default_packages": []string{"ok", "rm -rf /"}, "colour": "red"},
		}).problem(t, 422, "validation_failed")
		assert.ElementsMatch(t, []string{"name", "url", "config.colour", "config.timeout", "config.default_image",
			"config.volume_mounts.0", "config.default_packages.1"}, fields(p), "an unknown key hides nothing else")

		p = e.call("POST", "/api/v1/sandboxes", e.admin, map[string]any{
			"name": "n", "provider": "local", "config": map[string]any{"timeout": 0, "resources": map[string]any{"memory_mb": "x", "gpus": 1}, "bogus": 1},
		}).problem(t, 422, "validation_failed")
		assert.ElementsMatch(t, []string{"config.timeout", "config.resources.memory_mb", "config.resources.gpus", "config.bogus"}, fields(p),
			"a value of the wrong type hides nothing else either")

		p = e.call("POST", "/api/v1/sandboxes", e.admin, `{"name":5,"description":"d","provider":7}`).problem(t, 422, "validation_failed")
		assert.Equal(t, []string{"name", "provider"}, fields(p), "every member of the wrong type")
		agent := e.call("POST", "/api/v1/agents", e.admin, map[string]any{"name": "Typed"}).json(t)
		p = e.call("PUT", "/api/v1/agents/"+agent["id"].(string)+"/sandbox", e.admin,
			`{"sandbox_id":5,"tools":{"execute":5,"grep":"disabled","ls":[]}}`).problem(t, 422, "validation_failed")
		assert.Equal(t, []string{"sandbox_id", "tools.execute", "tools.ls"}, fields(p), "a map's entries are named")
	})
}

func TestURLPolicy(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		for _, url := range []string{"127.0.0.1:8083", "http://10.0.0.5:8083", "localhost:8083", "http://[::1]:8083"} {
			body := map[string]any{"name": url, "provider": "opensandbox", "url": url}
			assert.Equal(t, 201, e.call("POST", "/api/v1/sandboxes", e.admin, body).StatusCode, "%s is allowed by default", url)
		}
	})
	eachDB(t, func(t *testing.T, e *env) {
		for _, url := range []string{"127.0.0.1:8083", "http://10.0.0.5:8083", "localhost:8083", "http://[::1]:8083", "http://192.168.1.2", "http://100.64.0.1"} {
			body := map[string]any{"name": url, "provider": "opensandbox", "url": url}
			p := e.call("POST", "/api/v1/sandboxes", e.admin, body).problem(t, 422, "validation_failed")
			assert.Equal(t, []string{"url"}, fields(p), url)
		}
		body := map[string]any{"name": "public", "provider": "opensandbox", "url": "https://sandbox.example.com"}
		r := e.call("POST", "/api/v1/sandboxes", e.admin, body)
		assert.Equal(t, 201, r.StatusCode, "%s", r.body)
	}, func(o *options) { o.policy.BlockPrivateURLs = true })
}

func TestAllowedHostPaths(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		mount := func(m string) response {
			return e.call("POST", "/api/v1/sandboxes", e.admin, map[string]any{"name": m, "provider": "opensandbox",
				"url": "sandbox.internal:8083", "config": map[string]any{"volume_mounts": []string{m}}})
		}
		assert.Equal(t, 201, mount("/srv/data:/data:ro").StatusCode)
		assert.Equal(t, 201, mount("/srv/data/team:/team").StatusCode)
		p := mount("/srv/database:/db").problem(t, 422, "validation_failed")
		assert.Equal(t, []string{"config.volume_mounts.0"}, fields(p), "a sibling with the same prefix is not inside")
		mount("/home/x:/x").problem(t, 422, "validation_failed")
	}, func(o *options) { o.policy.AllowedHostPaths = []string{"/srv/data"} })
}

func TestALocalSandboxAboveTheServersCeilingsIsRefused(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		schema := e.providerNamed("local")["config_schema"].(map[string]any)["properties"].(map[string]any)
		resources := schema["resources"].(map[string]any)["properties"].(map[string]any)
		assert.Equal(t, []any{512.0, 2048.0, 1.0, 128.0}, []any{resources["memory_mb"].(map[string]any)["maximum"],
			resources["disk_mb"].(map[string]any)["maximum"], resources["cpu"].(map[string]any)["maximum"],
			schema["max_processes"].(map[string]any)["maximum"]}, "the form knows the ceilings")

		p := e.call("POST", "/api/v1/sandboxes", e.admin, map[string]any{"name": "greedy", "provider": "local",
			"config": map[string]any{"resources": map[string]any{"memory_mb": 65536, "disk_mb": 1048576, "cpu": 2},
				"max_processes": 4096, "timeout": 0}}).problem(t, 422, "validation_failed")
		got := map[string]string{}
		for _, fe := range p["errors"].([]any) {
			got[fe.(map[string]any)["field"].(string)] = fe.(map[string]any)["message"].(string)
		}
		assert.Equal(t, map[string]string{
			"config.resources.memory_mb": "must be at most 512 MiB on this server (AUXILIA_LOCAL_MAX_MEMORY_MB)",
			"config.resources.disk_mb":   "must be at most 2,048 MiB on this server (AUXILIA_LOCAL_MAX_DISK_MB)",
			"config.resources.cpu":       "must be at most 1 on this server (AUXILIA_LOCAL_MAX_CPU)",
			"config.max_processes":       "must be at most 128 on this server (AUXILIA_LOCAL_MAX_PROCESSES)",
			"config.timeout":             "must be at least 1",
		}, got, "every broken field at once")
		assert.Empty(t, e.call("GET", "/api/v1/sandboxes", e.admin, nil).json(t)["items"], "nothing saved")

		sb := e.createSandbox(map[string]any{"name": "modest", "provider": "local"})
		assert.Equal(t, 512.0, sb["config"].(map[string]any)["resources"].(map[string]any)["memory_mb"],
			"the default is lowered to the ceiling")
		path := "/api/v1/sandboxes/" + sb["id"].(string)
		p = e.call("PATCH", path, e.admin, map[string]any{"config": map[string]any{"resources": map[string]any{"memory_mb": 1024}}},
			"If-Match", e.call("GET", path, e.admin, nil).Header.Get("ETag")).problem(t, 422, "validation_failed")
		assert.Equal(t, []string{"config.resources.memory_mb"}, fields(p))
		assert.Equal(t, 512.0, e.call("GET", path, e.admin, nil).json(t)["config"].(map[string]any)["resources"].(map[string]any)["memory_mb"],
			"a patch above a ceiling changes nothing")
	}, func(o *options) {
		o.localCeilings = local.Ceilings{MemoryMB: 512, DiskMB: 2048, CPU: 1, Processes: 128}
	})
}

// A sandbox saved before the operator lowered a ceiling is never given
// more than the server now allows: its probe and its runs say what to
// lower, and once lowered it runs.
func TestALocalSandboxAboveALoweredCeilingRunsNothingUntilLowered(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		agent, sb := newEnv(t, db).boundAgent(nil) // saved with 1024 MiB, before any ceiling
		e := newEnv(t, db, func(o *options) { o.localCeilings = local.Ceilings{MemoryMB: 512} })
		const why = "resources.memory_mb must be at most 512 MiB on this server (AUXILIA_LOCAL_MAX_MEMORY_MB)"
		path := "/api/v1/sandboxes/" + sb["id"].(string)

		probe := e.call("POST", path+"/probe", e.admin, nil).json(t)
		assert.Equal(t, false, probe["ok"])
		assert.Equal(t, "config", probe["reason"])
		assert.Contains(t, probe["detail"], why)
		runs := "/api/v1/agents/" + agent["id"].(string) + "/threads/t/runs"
		p := e.call("POST", runs, e.member, nil).problem(t, 409, "sandbox_unavailable")
		assert.Contains(t, p["detail"], why)
		assert.Contains(t, p["detail"], "lower it in the sandbox's settings")

		p = e.call("PATCH", path, e.admin, map[string]any{"description": "renamed"},
			"If-Match", e.call("GET", path, e.admin, nil).Header.Get("ETag")).problem(t, 422, "validation_failed")
		assert.Equal(t, []string{"config.resources.memory_mb"}, fields(p), "any save must meet the ceiling")
		r := e.call("PATCH", path, e.admin, map[string]any{"config": map[string]any{"resources": map[string]any{"memory_mb": nil}}},
			"If-Match", e.call("GET", path, e.admin, nil).Header.Get("ETag"))
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		assert.Equal(t, 512.0, r.json(t)["config"].(map[string]any)["resources"].(map[string]any)["memory_mb"])
		r = e.call("POST", runs, e.member, nil)
		assert.Equal(t, 201, r.StatusCode, "lowered, it runs: %s", r.body)
	})
}

func TestDuplicateNames(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		first := e.createSandbox(validSandboxes["local"])
		p := e.call("POST", "/api/v1/sandboxes", e.admin, validSandboxes["local"]).problem(t, 409, "conflict")
		assert.Equal(t, first["id"], p["existing_id"])

		other := e.call("POST", "/api/v1/sandboxes", e.foreign, validSandboxes["local"])
		assert.Equal(t, 201, other.StatusCode, "names are unique per workspace")

		require.Equal(t, 204, e.call("DELETE", "/api/v1/sandboxes/"+first["id"].(string), e.admin, nil).StatusCode)
		assert.Equal(t, 201, e.call("POST", "/api/v1/sandboxes", e.admin, validSandboxes["local"]).StatusCode, "a deleted sandbox's name is free")
	})
}

func TestWorkspacesAndRoles(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		sb := e.createSandbox(validSandboxes["daytona"])
		path := "/api/v1/sandboxes/" + sb["id"].(string)
		for _, r := range []response{
			e.call("GET", path, e.foreign, nil),
			e.call("PATCH", path, e.foreign, map[string]any{"name": "x"}),
			e.call("DELETE", path, e.foreign, nil),
			e.call("GET", path+"/secret-hint", e.foreign, nil),
			e.call("POST", path+"/probe", e.foreign, nil),
		} {
			r.problem(t, 404, "not_found")
		}
		assert.Empty(t, e.call("GET", "/api/v1/sandboxes", e.foreign, nil).json(t)["items"])

		for _, r := range []response{
			e.call("POST", "/api/v1/sandboxes", e.member, validSandboxes["local"]),
			e.call("PATCH", path, e.member, map[string]any{"name": "x"}),
			e.call("DELETE", path, e.member, nil),
			e.call("GET", path+"/secret-hint", e.member, nil),
			e.call("POST", path+"/probe", e.member, nil),
			e.call("POST", "/api/v1/sandboxes/probe", e.member, validSandboxes["local"]),
		} {
			r.problem(t, 403, "forbidden")
		}
	})
}

func TestSecretsNeverLeave(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		secretValue := validSandboxes["daytona"]["secret"].(string)
		var bodies []string
		sb := e.createSandbox(validSandboxes["daytona"])
		id := sb["id"].(string)
		for _, r := range []response{
			e.call("GET", "/api/v1/sandboxes/"+id, e.admin, nil),
			e.call("GET", "/api/v1/sandboxes", e.admin, nil),
			e.call("PATCH", "/api/v1/sandboxes/"+id, e.admin, map[string]any{"description": "edited"}),
			e.call("GET", "/api/v1/sandboxes/"+id+"/secret-hint", e.admin, nil),
			e.call("POST", "/api/v1/sandboxes", e.admin, map[string]any{"name": "bad", "provider": "daytona", "secret": secretValue, "config": map[string]any{"timeout": 0}}),
		} {
			bodies = append(bodies, string(r.body))
		}
		for _, b := range bodies {
			assert.NotContains(t, b, secretValue)
			assert.NotContains(t, b, secretValue[:12])
		}
		assert.NotContains(t, e.logs.String(), secretValue)

		sqlDB, err := e.db.SQL()
		require.NoError(t, err)
		rows, err := sqlDB.QueryContext(context.Background(), "SELECT * FROM sandboxes")
		require.NoError(t, err)
		defer rows.Close()
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			require.NoError(t, rows.Scan(ptrs...))
			for i, v := range vals {
				assert.NotContains(t, fmt.Sprint(v), secretValue[:12], "column %s holds the secret in plaintext", cols[i])
			}
		}
	})
}

func TestSecretHint(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		hint := func(body map[string]any) map[string]any {
			id := e.createSandbox(body)["id"].(string)
			return e.call("GET", "/api/v1/sandboxes/"+id+"/secret-hint", e.admin, nil).json(t)
		}
		assert.Equal(t, map[string]any{"is_set": true, "last4": "WXYZ", "length": float64(24)}, hint(validSandboxes["daytona"]))
		assert.Equal(t, map[string]any{"is_set": true, "last4": nil, "length": float64(9)},
			hint(map[string]any{"name": "short", "provider": "daytona", "secret": "123456789"}))
		assert.Equal(t, map[string]any{"is_set": false, "last4": nil, "length": nil}, hint(validSandboxes["local"]))
	})
}

func TestPatch(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		sb := e.createSandbox(validSandboxes["opensandbox"])
		path := "/api/v1/sandboxes/" + sb["id"].(string)
		patch := func(body any, headers ...string) response { return e.call("PATCH", path, e.admin, body, headers...) }
		hint := func() map[string]any { return e.call("GET", path+"/secret-hint", e.admin, nil).json(t) }

		r := patch(map[string]any{"description": "edited", "config": map[string]any{"timeout": 60}})
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		got := r.json(t)
		assert.Equal(t, "edited", got["description"])
		cfg := got["config"].(map[string]any)
		assert.Equal(t, float64(60), cfg["timeout"])
		assert.Equal(t, []any{"/srv/data:/data:ro"}, cfg["volume_mounts"], "config members left out stay")
		assert.Equal(t, "Team OpenSandbox", got["name"])
		assert.Equal(t, `"2"`, r.Header.Get("ETag"))
		assert.Equal(t, "cdef", hint()["last4"], "a patch without secret keeps it")

		require.Equal(t, 200, patch(map[string]any{"secret": ""}).StatusCode)
		assert.Equal(t, "cdef", hint()["last4"], "an empty secret keeps it")
		require.Equal(t, 200, patch(map[string]any{"secret": "new-secret-value-9876"}).StatusCode)
		assert.Equal(t, "9876", hint()["last4"])
		r = patch(map[string]any{"secret": nil})
		require.Equal(t, 200, r.StatusCode)
		assert.Equal(t, false, r.json(t)["has_secret"], "null clears a secret the provider does not require")

		r = patch(map[string]any{"config": map[string]any{"timeout": nil, "volume_mounts": nil}, "description": nil})
		require.Equal(t, 200, r.StatusCode)
		got = r.json(t)
		assert.Equal(t, float64(1800), got["config"].(map[string]any)["timeout"], "null resets to the default")
		assert.Equal(t, []any{}, got["config"].(map[string]any)["volume_mounts"])
		assert.Equal(t, "", got["description"])

		p := patch(map[string]any{"provider": "daytona"}).problem(t, 422, "validation_failed")
		assert.Equal(t, []string{"provider"}, fields(p))
		p = patch(map[string]any{"name": nil, "config": map[string]any{"timeout": 0}}).problem(t, 422, "validation_failed")
		assert.ElementsMatch(t, []string{"name", "config.timeout"}, fields(p), "the merged result is validated as a whole")
		patch(map[string]any{"colour": "red"}).problem(t, 400, "malformed_request")
		patch(`[]`).problem(t, 400, "malformed_request")
		patch(`{"name":`).problem(t, 400, "malformed_request")

		// ETag and If-Match.
		current := e.call("GET", path, e.admin, nil).Header.Get("ETag")
		patch(map[string]any{"description": "x"}, "If-Match", `"1"`).problem(t, 412, "precondition_failed")
		assert.Equal(t, 200, patch(map[string]any{"description": "x"}, "If-Match", current).StatusCode)
		e.call("DELETE", path, e.admin, nil, "If-Match", current).problem(t, 412, "precondition_failed")
		current = e.call("GET", path, e.admin, nil).Header.Get("ETag")
		for _, never := range []string{`W/` + current, strings.Trim(current, `"`), `"+` + strings.Trim(current, `"`) + `"`, `"x"`} {
			patch(map[string]any{"description": "y"}, "If-Match", never).problem(t, 412, "precondition_failed")
		}
		assert.Equal(t, 200, patch(map[string]any{"description": "y"}, "If-Match", `"1", `+current).StatusCode,
			"a list matches when any of its tags does")
		current = e.call("GET", path, e.admin, nil).Header.Get("ETag")
		assert.Equal(t, 200, patch(map[string]any{"description": "z"}, "If-Match", `"1"`, "If-Match", current).StatusCode,
			"however many header lines it comes in")

		other := e.createSandbox(validSandboxes["local"])
		p = patch(map[string]any{"name": other["name"]}).problem(t, 409, "conflict")
		assert.Equal(t, other["id"], p["existing_id"])

		dt := e.createSandbox(validSandboxes["daytona"])
		dpath := "/api/v1/sandboxes/" + dt["id"].(string)
		p = e.call("PATCH", dpath, e.admin, map[string]any{"secret": nil}).problem(t, 422, "validation_failed")
		assert.Equal(t, []string{"secret"}, fields(p), "a required secret cannot be cleared")
		e.call("PATCH", dpath, e.admin, map[string]any{"url": "https://daytona.internal/api"}).problem(t, 422, "validation_failed")
		r = e.call("PATCH", dpath, e.admin, map[string]any{"url": "https://daytona.internal/api", "secret": "dtn_other-key-0123456789"})
		require.Equal(t, 200, r.StatusCode)
		r = e.call("PATCH", dpath, e.admin, map[string]any{"url": nil, "secret": "dtn_0123456789abcdefWXYZ"})
		assert.Equal(t, "https://app.daytona.io/api", r.json(t)["url"], "null resets the url to the provider's default")

		lo := e.createSandbox(map[string]any{"name": "Local 2", "provider": "local"})
		// Offline, its packages still install: that step alone reaches the index.
		r = e.call("PATCH", "/api/v1/sandboxes/"+lo["id"].(string), e.admin,
			map[string]any{"config": map[string]any{"default_packages": []string{"pandas"}}})
		assert.Equal(t, 200, r.StatusCode, "%s", r.body)
		r = e.call("PATCH", "/api/v1/sandboxes/"+lo["id"].(string), e.admin,
			map[string]any{"config": map[string]any{"default_packages": []string{"pandas"}, "network": true}})
		assert.Equal(t, 200, r.StatusCode, "%s", r.body)
	})
}

func TestDelete(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		sb := e.createSandbox(validSandboxes["local"])
		path := "/api/v1/sandboxes/" + sb["id"].(string)
		require.Equal(t, 204, e.call("DELETE", path, e.admin, nil, "If-Match", `"1"`).StatusCode)
		e.call("GET", path, e.admin, nil).problem(t, 404, "not_found")
		e.call("DELETE", path, e.admin, nil).problem(t, 404, "not_found")
		e.call("PATCH", path, e.admin, map[string]any{"name": "x"}).problem(t, 404, "not_found")
		assert.Empty(t, e.call("GET", "/api/v1/sandboxes", e.admin, nil).json(t)["items"])
	})
}

func TestCatalogue(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		items := e.call("GET", "/api/v1/providers", e.member, nil).json(t)["items"].([]any)
		var names []string
		for _, it := range items {
			p := it.(map[string]any)
			names = append(names, p["name"].(string))
			schema := p["config_schema"].(map[string]any)
			assert.Equal(t, false, schema["additionalProperties"])
			defaults := map[string]any{}
			for key, prop := range schema["properties"].(map[string]any) {
				defaults[key] = prop.(map[string]any)["default"]
			}
			body := map[string]any{"name": "from schema " + p["name"].(string), "provider": p["name"], "config": defaults}
			url := p["url"].(map[string]any)
			if url["required"] == true && url["default"] == "" {
				body["url"] = "https://provider.example.com"
			}
			if p["secret"].(map[string]any)["required"] == true {
				body["secret"] = "0123456789abcdef"
			}
			r := e.call("POST", "/api/v1/sandboxes", e.admin, body)
			require.Equal(t, 201, r.StatusCode, "a config of the schema's defaults validates: %s", r.body)
			assert.Equal(t, defaults, r.json(t)["config"], "and is what the server fills in")
		}
		assert.Equal(t, []string{"opensandbox", "e2b", "daytona", "cloudrun", "kubernetes", "local"}, names)
		dt := e.providerNamed("daytona")
		assert.Equal(t, map[string]any{"accepted": true, "required": true, "default": "https://app.daytona.io/api", "label": "API URL"}, dt["url"])
	})

	eachDB(t, func(t *testing.T, e *env) {
		local := e.providerNamed("local")
		assert.Equal(t, false, local["enabled"])
		assert.Contains(t, local["disabled_reason"], "AUXILIA_LOCAL_PROVIDER")
		p := e.call("POST", "/api/v1/sandboxes", e.admin, validSandboxes["local"]).problem(t, 422, "validation_failed")
		assert.Equal(t, []string{"provider"}, fields(p))
	}, func(o *options) { o.operator = provider.OperatorValues{"AUXILIA_LOCAL_PROVIDER": "off"} })
}

func TestCreateIsIdempotent(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		first := e.call("POST", "/api/v1/sandboxes", e.admin, validSandboxes["local"], "Idempotency-Key", "abc")
		again := e.call("POST", "/api/v1/sandboxes", e.admin, validSandboxes["local"], "Idempotency-Key", "abc")
		require.Equal(t, 201, again.StatusCode, "a retry is not a duplicate-name conflict")
		assert.Equal(t, first.json(t)["id"], again.json(t)["id"])
		assert.Equal(t, first.Header.Get("ETag"), again.Header.Get("ETag"))
	})
}
