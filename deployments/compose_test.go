package deployments

import (
	"context"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/dotenv"
	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
)

// The settings an operator fills into .env before the first start.
var filledEnv = map[string]string{
	"POSTGRES_PASSWORD":       "0123456789abcdef0123456789abcdef",
	"AUXILIA_SECRET_KEYS":     "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
	"AUXILIA_BOOTSTRAP_TOKEN": "aux_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG",
}

// exampleEnv is .env.example as compose reads it, with filled applied.
func exampleEnv(t *testing.T, filled map[string]string) map[string]string {
	t.Helper()
	env, err := dotenv.Read(".env.example")
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range filled {
		if _, ok := env[k]; !ok {
			t.Errorf(".env.example does not list %s", k)
		}
		env[k] = v
	}
	return env
}

// loadCompose loads compose.yaml as `docker compose config` would: schema
// validation, interpolation, merge keys, consistency checks. Only the given
// variables are seen, not the caller's environment or a local .env.
func loadCompose(env map[string]string) (*types.Project, error) {
	var list []string
	for k, v := range env {
		list = append(list, k+"="+v)
	}
	opts, err := cli.NewProjectOptions([]string{"compose.yaml"},
		cli.WithWorkingDirectory("."),
		cli.WithEnv(list),
		cli.WithLoadOptions(func(o *loader.Options) { o.SkipResolveEnvironment = true }),
	)
	if err != nil {
		return nil, err
	}
	return opts.LoadProject(context.Background())
}

// TestComposeRequiresSecrets checks that the compose file refuses to start
// without the settings .env.example leaves for the operator to fill in.
func TestComposeRequiresSecrets(t *testing.T) {
	for name := range filledEnv {
		if name == "AUXILIA_BOOTSTRAP_TOKEN" {
			continue // optional: without it the first replica prints a token
		}
		t.Run(name, func(t *testing.T) {
			filled := map[string]string{}
			for k, v := range filledEnv {
				if k != name {
					filled[k] = v
				}
			}
			_, err := loadCompose(exampleEnv(t, filled))
			if err == nil || !strings.Contains(err.Error(), name) {
				t.Fatalf("loaded without %s (error %v); want a refusal naming it", name, err)
			}
		})
	}
}

func TestCompose(t *testing.T) {
	p, err := loadCompose(exampleEnv(t, filledEnv))
	if err != nil {
		t.Fatal(err)
	}
	service := func(name string) types.ServiceConfig {
		t.Helper()
		s, err := p.GetService(name)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	names := slices.Sorted(maps.Keys(p.Services))
	if want := []string{"auxilia", "migrate", "nginx", "postgres"}; !slices.Equal(names, want) {
		t.Fatalf("services %v; want %v", names, want)
	}
	server, migrate, postgres, nginx := service("auxilia"), service("migrate"), service("postgres"), service("nginx")

	t.Run("server containers", func(t *testing.T) {
		pgEnv := postgres.Environment
		for _, s := range []types.ServiceConfig{server, migrate} {
			if s.Image != server.Image {
				t.Errorf("%s runs %s, the servers %s", s.Name, s.Image, server.Image)
			}
			if s.Build == nil || filepath.Clean(s.Build.Context) != absPath(t, repoRoot) || s.Build.Dockerfile != "deployments/Dockerfile" {
				t.Errorf("%s builds %+v; want deployments/Dockerfile in the repository root", s.Name, s.Build)
			}
			env := func(k string) string { return deref(s.Environment[k]) }
			if got := env("AUXILIA_LOCAL_PROVIDER"); got != "off" {
				t.Errorf("%s: AUXILIA_LOCAL_PROVIDER=%q; want off", s.Name, got)
			}
			for _, k := range []string{"AUXILIA_SECRET_KEYS", "AUXILIA_BOOTSTRAP_TOKEN"} {
				if got := env(k); got != filledEnv[k] {
					t.Errorf("%s: %s=%q; want the value from .env", s.Name, k, got)
				}
			}
			db, err := url.Parse(env("DATABASE_URL"))
			if err != nil {
				t.Fatalf("%s: DATABASE_URL: %v", s.Name, err)
			}
			pass, _ := db.User.Password()
			if db.Scheme != "postgres" || db.Host != "postgres:5432" || db.User.Username() != deref(pgEnv["POSTGRES_USER"]) ||
				pass != filledEnv["POSTGRES_PASSWORD"] || strings.TrimPrefix(db.Path, "/") != deref(pgEnv["POSTGRES_DB"]) {
				t.Errorf("%s: DATABASE_URL %s does not match the postgres service", s.Name, db.Redacted())
			}
			if !s.ReadOnly || !slices.Contains(s.CapDrop, "ALL") || !slices.Contains(s.SecurityOpt, "no-new-privileges:true") {
				t.Errorf("%s: read_only %v, cap_drop %v, security_opt %v; want a read-only root, no capabilities, no new privileges",
					s.Name, s.ReadOnly, s.CapDrop, s.SecurityOpt)
			}
		}
	})

	t.Run("replicas", func(t *testing.T) {
		if n := server.GetScale(); n != 2 {
			t.Errorf("auxilia runs %d replicas; want 2", n)
		}
		if !slices.Equal(server.Command, types.ShellCommand{"serve"}) {
			t.Errorf("auxilia runs %v; want [serve]", server.Command)
		}
		if len(server.Ports) != 0 {
			t.Error("a replica publishes a port: clients must go through the load balancer")
		}
		// Metrics need no token: apart from the API, which nginx fronts.
		metrics, api := deref(server.Environment["AUXILIA_METRICS_LISTEN"]), deref(server.Environment["AUXILIA_LISTEN"])
		if _, port, err := net.SplitHostPort(metrics); err != nil || strings.HasSuffix(api, ":"+port) {
			t.Errorf("AUXILIA_METRICS_LISTEN=%q; want a port of its own, apart from AUXILIA_LISTEN=%q", metrics, api)
		}
		checkHealthcheck(t, server, "/readyz")
		checkDependsOn(t, server, "migrate", types.ServiceConditionCompletedSuccessfully)
		checkDependsOn(t, server, "postgres", types.ServiceConditionHealthy)
		shutdown, err := time.ParseDuration(deref(server.Environment["AUXILIA_SHUTDOWN_TIMEOUT"]))
		if err != nil {
			t.Fatalf("AUXILIA_SHUTDOWN_TIMEOUT: %v", err)
		}
		// Docker's own default is 10 s; 30 s is the server's default shutdown timeout.
		if g := server.StopGracePeriod; g == nil || time.Duration(*g) <= max(shutdown, 30*time.Second)+finalStreamEnd {
			t.Errorf("stop_grace_period %v; want more than the shutdown timeout %s + %s", g, shutdown, finalStreamEnd)
		}
	})

	t.Run("migration", func(t *testing.T) {
		if !slices.Equal(migrate.Command, types.ShellCommand{"migrate"}) {
			t.Errorf("migrate runs %v; want [migrate]", migrate.Command)
		}
		if migrate.Restart != "no" {
			t.Errorf("migrate restarts (%q): a one-shot job must not", migrate.Restart)
		}
		checkDependsOn(t, migrate, "postgres", types.ServiceConditionHealthy)
	})

	t.Run("postgres", func(t *testing.T) {
		if !strings.HasPrefix(postgres.Image, "postgres:16") {
			t.Errorf("postgres runs %s; want postgres:16", postgres.Image)
		}
		checkHealthcheck(t, postgres, "pg_isready")
		if !slices.ContainsFunc(postgres.Volumes, func(v types.ServiceVolumeConfig) bool {
			return v.Type == types.VolumeTypeVolume && v.Target == "/var/lib/postgresql/data"
		}) {
			t.Error("postgres keeps its data in no named volume")
		}
		if len(postgres.Ports) != 0 {
			t.Error("postgres publishes a port")
		}
	})

	t.Run("load balancer", func(t *testing.T) {
		if len(nginx.Ports) != 1 || nginx.Ports[0].Published == "" {
			t.Fatalf("nginx ports %+v; want one published port", nginx.Ports)
		}
		checkDependsOn(t, nginx, "auxilia", types.ServiceConditionHealthy)
		checkHealthcheck(t, nginx, "/nginx-health")
		i := slices.IndexFunc(nginx.Volumes, func(v types.ServiceVolumeConfig) bool {
			return v.Type == types.VolumeTypeBind && v.Target == "/etc/nginx/conf.d/default.conf"
		})
		if i < 0 {
			t.Fatal("nginx does not mount its configuration")
		}
		if v := nginx.Volumes[i]; !v.ReadOnly || filepath.Clean(v.Source) != absPath(t, "nginx.conf") {
			t.Errorf("nginx mounts %s (read-only %v); want ./nginx.conf read-only", v.Source, v.ReadOnly)
		}
		_, port, _ := net.SplitHostPort(deref(server.Environment["AUXILIA_LISTEN"]))
		checkNginx(t, readFile(t, "nginx.conf"), nginxExpect{
			listen:       nginx.Ports[0].Target,
			upstreamHost: server.Name,
			upstreamPort: port,
			healthPath:   "/nginx-health",
			// What nginx sets on its own answers is what the server sets on its.
			securityHeaders: serverSecurityHeaders(t),
		})
	})

	t.Run("healthchecks", func(t *testing.T) {
		for _, s := range p.Services {
			if s.Restart == "no" {
				continue // one-shot
			}
			if s.HealthCheck == nil || s.HealthCheck.Disable || len(s.HealthCheck.Test) == 0 {
				t.Errorf("%s runs for good without a healthcheck", s.Name)
			}
		}
	})
}

func checkHealthcheck(t *testing.T, s types.ServiceConfig, want string) {
	t.Helper()
	h := s.HealthCheck
	if h == nil || h.Disable || !strings.Contains(strings.Join(h.Test, " "), want) {
		t.Errorf("%s: healthcheck %+v; want one that checks %s", s.Name, h, want)
	}
}

func checkDependsOn(t *testing.T, s types.ServiceConfig, on, condition string) {
	t.Helper()
	if d, ok := s.DependsOn[on]; !ok || d.Condition != condition {
		t.Errorf("%s depends on %s with %+v; want %s", s.Name, on, d, condition)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func absPath(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		t.Fatal(err)
	}
	return abs
}
