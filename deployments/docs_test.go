package deployments

import (
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// TestConfigurationReference checks that docs/operations.md's configuration
// table lists exactly the variables the server reads.
func TestConfigurationReference(t *testing.T) {
	server, documented := serverVariables(t), documentedVariables(t)
	if len(server) == 0 {
		t.Fatal("found no variable in cmd/auxilia/config.go")
	}
	for _, v := range server {
		if !slices.Contains(documented, v) {
			t.Errorf("the server reads %s; docs/operations.md's configuration reference does not list it", v)
		}
	}
	for _, v := range documented {
		if !slices.Contains(server, v) {
			t.Errorf("docs/operations.md documents %s, which the server does not read", v)
		}
	}
}

// TestArtifactVariables checks that every server variable the deployment
// files name (set, or mention in a comment) is one the server reads: a
// misspelt setting would be ignored without a word.
func TestArtifactVariables(t *testing.T) {
	server := serverVariables(t)
	files := []string{"Dockerfile", "compose.yaml", "nginx.conf", ".env.example",
		filepath.Join(repoRoot, ".dockerignore"), filepath.Join(repoRoot, "docs", "operations.md")}
	err := filepath.WalkDir(chartDir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	name := regexp.MustCompile(`\b(?:AUXILIA_[A-Z0-9_]+|DATABASE_URL)\b`)
	for _, f := range files {
		for _, v := range uniqueMatches(regexp.MustCompile(`(`+name.String()+`)`), readFile(t, f)) {
			if !slices.Contains(server, v) {
				t.Errorf("%s names %s, which the server does not read", f, v)
			}
		}
	}
}
