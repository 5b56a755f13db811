package deployments

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/linter"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
)

// parseDockerfile parses the Dockerfile as BuildKit does, failing on any
// warning of its parser or of the checks `docker build --check` runs while
// parsing.
func parseDockerfile(t *testing.T) []instructions.Stage {
	t.Helper()
	f, err := os.Open("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := parser.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range res.Warnings {
		t.Errorf("Dockerfile: %s", w.Short)
	}
	lint := linter.New(&linter.Config{Warn: func(rule, _, url, msg string, loc []parser.Range) {
		line := 0
		if len(loc) > 0 {
			line = loc[0].Start.Line
		}
		t.Errorf("Dockerfile:%d: %s: %s (%s)", line, rule, msg, url)
	}})
	stages, _, err := instructions.Parse(res.AST, lint)
	if err != nil {
		t.Fatal(err)
	}
	return stages
}

func TestDockerfile(t *testing.T) {
	stages := parseDockerfile(t)
	if len(stages) < 3 {
		t.Fatalf("%d stages; want the SPA, the binary and the runtime apart", len(stages))
	}
	stage := func(name string) instructions.Stage {
		t.Helper()
		i := slices.IndexFunc(stages, func(s instructions.Stage) bool { return s.Name == name })
		if i < 0 {
			t.Fatalf("no stage %s", name)
		}
		return stages[i]
	}
	spa, build, final := stage("spa"), stage("build"), stages[len(stages)-1]

	t.Run("base images", func(t *testing.T) {
		for _, s := range stages {
			repo, tag, ok := strings.Cut(s.BaseName, ":")
			if !ok || tag == "" || tag == "latest" || strings.Contains(repo, "$") {
				t.Errorf("stage %q builds on %q: pin a tag", s.Name, s.BaseName)
			}
		}
		if !strings.HasPrefix(spa.BaseName, "node:20") {
			t.Errorf("the SPA builds on %s; want Node 20", spa.BaseName)
		}
		checkNodeEngines(t, spa.BaseName)
		checkGoImage(t, build.BaseName)
		if !regexp.MustCompile(`^debian:[a-z]+-slim$`).MatchString(final.BaseName) {
			t.Errorf("the runtime image builds on %s; want Debian slim", final.BaseName)
		}
	})

	t.Run("SPA", func(t *testing.T) {
		runs := runLines(spa)
		if !anyContains(runs, "npm ci") || !anyContains(runs, "npm run build") {
			t.Errorf("the SPA stage runs %q; want npm ci and npm run build", runs)
		}
	})

	t.Run("binary", func(t *testing.T) {
		runs := runLines(build)
		i := slices.IndexFunc(runs, func(r string) bool { return strings.Contains(r, "go build") })
		if i < 0 {
			t.Fatal("no go build")
		}
		if !strings.Contains(runs[i], "CGO_ENABLED=0") || !strings.Contains(runs[i], "-o /out/auxilia ./cmd/auxilia") {
			t.Errorf("go build as %q; want CGO_ENABLED=0 … -o /out/auxilia ./cmd/auxilia", runs[i])
		}
		for _, s := range stages {
			for _, c := range s.Commands {
				if e, ok := c.(*instructions.EnvCommand); ok && slices.ContainsFunc(e.Env, func(kv instructions.KeyValuePair) bool {
					return kv.Key == "CGO_ENABLED" && kv.Value != "0"
				}) {
					t.Errorf("stage %s switches CGO on", s.Name)
				}
			}
		}
		if !slices.ContainsFunc(build.Commands, func(c instructions.Command) bool {
			cp, ok := c.(*instructions.CopyCommand)
			return ok && cp.From == spa.Name && cp.DestPath == "./frontend/dist"
		}) {
			t.Error("the SPA's build does not reach frontend/dist before go build embeds it")
		}
	})

	t.Run("runtime image", func(t *testing.T) {
		runs := strings.Join(runLines(final), "\n")
		for _, pkg := range []string{"bubblewrap", "util-linux", "python3", "ca-certificates"} {
			if !regexp.MustCompile(`apt-get install[^\n]*\s` + regexp.QuoteMeta(pkg) + `(\s|$)`).MatchString(runs) {
				t.Errorf("the runtime image does not install %s", pkg)
			}
		}
		if !slices.ContainsFunc(final.Commands, func(c instructions.Command) bool {
			cp, ok := c.(*instructions.CopyCommand)
			return ok && cp.From == build.Name && slices.Equal(cp.SourcePaths, []string{"/out/auxilia"}) && cp.DestPath == "/usr/local/bin/auxilia"
		}) {
			t.Error("the binary is not copied to /usr/local/bin/auxilia")
		}

		user := last[*instructions.UserCommand](final)
		if user == nil {
			t.Fatal("the final stage sets no USER: the server would run as root")
		}
		// Numeric, so that Kubernetes' runAsNonRoot can check it.
		uid, _, _ := strings.Cut(user.User, ":")
		if n, err := strconv.Atoi(uid); err != nil || n == 0 {
			t.Errorf("USER %s; want a numeric, non-root uid", user.User)
		}

		env := map[string]string{}
		for _, c := range final.Commands {
			if e, ok := c.(*instructions.EnvCommand); ok {
				for _, kv := range e.Env {
					env[kv.Key] = kv.Value
				}
			}
		}
		if env["AUXILIA_LISTEN"] != "0.0.0.0:8080" {
			t.Errorf("AUXILIA_LISTEN=%q; want 0.0.0.0:8080", env["AUXILIA_LISTEN"])
		}
		if expose := last[*instructions.ExposeCommand](final); expose == nil || !slices.Contains(expose.Ports, "8080") {
			t.Error("the image does not EXPOSE 8080")
		}
		hc := last[*instructions.HealthCheckCommand](final)
		if hc == nil || len(hc.Health.Test) < 2 || hc.Health.Test[0] != "CMD" || !strings.Contains(strings.Join(hc.Health.Test, " "), "/healthz") {
			t.Errorf("HEALTHCHECK %+v; want an exec-form check of /healthz", hc)
		}
		if e := last[*instructions.EntrypointCommand](final); e == nil || e.PrependShell || !slices.Equal(e.CmdLine, []string{"auxilia"}) {
			t.Errorf("ENTRYPOINT %+v; want [\"auxilia\"]", e)
		}
		if c := last[*instructions.CmdCommand](final); c == nil || c.PrependShell || !slices.Equal(c.CmdLine, []string{"serve"}) {
			t.Errorf("CMD %+v; want [\"serve\"]", c)
		}
	})

	t.Run("no remote ADD", func(t *testing.T) {
		for _, s := range stages {
			for _, c := range s.Commands {
				if add, ok := c.(*instructions.AddCommand); ok {
					for _, src := range add.SourcePaths {
						if strings.Contains(src, "://") || strings.HasPrefix(src, "git@") {
							t.Errorf("stage %s ADDs %s: fetch it in a RUN that checks it, or COPY it", s.Name, src)
						}
					}
				}
			}
		}
	})

	t.Run("build context", func(t *testing.T) {
		ignored := dockerignore(t)
		for _, s := range stages {
			for _, c := range s.Commands {
				cp, ok := c.(*instructions.CopyCommand)
				if !ok || cp.From != "" {
					continue
				}
				for _, src := range cp.SourcePaths {
					if _, err := os.Stat(filepath.Join(repoRoot, src)); err != nil {
						t.Errorf("stage %s copies %s: %v", s.Name, src, err)
					}
					if src != "." && ignored(strings.TrimSuffix(src, "/")) {
						t.Errorf("stage %s copies %s, which .dockerignore leaves out", s.Name, src)
					}
				}
			}
		}
	})
}

func TestDockerignore(t *testing.T) {
	ignored := dockerignore(t)
	for _, path := range []string{
		".git/HEAD", "node_modules/x/index.js", "frontend/node_modules/vite/package.json", "data/auxilia.db",
		"data/secret.key", "bin/auxilia", "frontend/dist/index.html", "frontend/dist/assets/index.js",
		"deployments/.env", ".env", "deployments/helm/auxilia/values.yaml",
	} {
		if !ignored(path) {
			t.Errorf("%s goes into the build context", path)
		}
	}
	for _, path := range []string{
		"go.mod", "go.sum", "cmd/auxilia/main.go", "openapi.yaml", "frontend/dist/.gitkeep",
		"frontend/package.json", "frontend/src/main.tsx", "frontend/embed.go",
	} {
		if ignored(path) {
			t.Errorf(".dockerignore leaves out %s", path)
		}
	}
}

// dockerignore returns whether the repository's .dockerignore leaves a path
// out of the build context, with Docker's own matcher.
func dockerignore(t *testing.T) func(string) bool {
	t.Helper()
	f, err := os.Open(filepath.Join(repoRoot, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	patterns, err := ignorefile.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	pm, err := patternmatcher.New(patterns)
	if err != nil {
		t.Fatal(err)
	}
	return func(path string) bool {
		ok, err := pm.MatchesOrParentMatches(path)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
}

// checkGoImage asserts that the Go image runs the Go version go.mod asks
// for: the official images build with GOTOOLCHAIN=local, so an older one
// fails. A floating minor tag (golang:1.26-…) carries the newest patch.
func checkGoImage(t *testing.T, image string) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^go (\d+)\.(\d+)(?:\.(\d+))?`).FindStringSubmatch(readFile(t, filepath.Join(repoRoot, "go.mod")))
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	tag := regexp.MustCompile(`^golang:(\d+)\.(\d+)(?:\.(\d+))?(?:-|$)`).FindStringSubmatch(image)
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	switch {
	case tag == nil:
		t.Errorf("the binary builds on %s; want an official golang image", image)
	case tag[1] != m[1] || tag[2] != m[2]:
		t.Errorf("the binary builds on %s; go.mod asks for Go %s.%s", image, m[1], m[2])
	case tag[3] != "" && atoi(tag[3]) < atoi(m[3]):
		t.Errorf("the binary builds on %s; go.mod asks for Go %s.%s.%s or newer", image, m[1], m[2], m[3])
	}
}

// checkNodeEngines asserts that the Node image satisfies package.json's engines.
func checkNodeEngines(t *testing.T, image string) {
	t.Helper()
	var pkg struct {
		Engines struct {
			Node string `json:"node"`
		} `json:"engines"`
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(repoRoot, "frontend", "package.json"))), &pkg); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`^>=\s*(\d+)`).FindStringSubmatch(pkg.Engines.Node)
	if m == nil {
		t.Logf("frontend/package.json engines.node %q is not >=N: not compared", pkg.Engines.Node)
		return
	}
	want, _ := strconv.Atoi(m[1])
	var major int
	if _, err := fmt.Sscanf(strings.TrimPrefix(image, "node:"), "%d", &major); err != nil || major < want {
		t.Errorf("%s does not satisfy engines.node %s", image, pkg.Engines.Node)
	}
}

// runLines are a stage's RUN commands as written.
func runLines(s instructions.Stage) []string {
	var out []string
	for _, c := range s.Commands {
		if r, ok := c.(*instructions.RunCommand); ok {
			out = append(out, strings.Join(r.CmdLine, " "))
		}
	}
	return out
}

func anyContains(list []string, sub string) bool {
	return slices.ContainsFunc(list, func(s string) bool { return strings.Contains(s, sub) })
}

// last returns a stage's last command of type T: the one in force.
func last[T instructions.Command](s instructions.Stage) T {
	var found T
	for _, c := range s.Commands {
		if v, ok := c.(T); ok {
			found = v
		}
	}
	return found
}
