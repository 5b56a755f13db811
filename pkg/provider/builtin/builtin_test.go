package builtin_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/builtin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every provider declares a distinct name and place, and a title and
// description the dialog shows.
func TestEachProviderDescribesItself(t *testing.T) {
	names, orders := map[string]bool{}, map[int]string{}
	for _, k := range builtin.Kinds(builtin.Options{}) {
		d := k.Describe()
		assert.Regexp(t, `^[a-z][a-z0-9]*$`, d.Name)
		assert.False(t, names[d.Name], "%s is declared twice", d.Name)
		names[d.Name] = true
		assert.Empty(t, orders[d.Order], "%s and %s share order %d", d.Name, orders[d.Order], d.Order)
		orders[d.Order] = d.Name
		assert.NotEmpty(t, d.Title, d.Name)
		assert.NotEmpty(t, d.Description, d.Name)
		assert.Contains(t, provider.Shells(), d.Shell, "%s says which shell runs its commands", d.Name)
		for _, s := range d.Settings {
			assert.Regexp(t, `^AUXILIA_[A-Z0-9_]+$`, s.Env, d.Name)
			assert.NotEmpty(t, s.Description, s.Env)
		}
	}
	registry := provider.NewRegistry(provider.Policy{}, nil, builtin.Kinds(builtin.Options{})...)
	today := []string{"opensandbox", "daytona", "cloudrun", "local"}
	assert.Equal(t, today, slices.DeleteFunc(registry.Names(), func(n string) bool { return !slices.Contains(today, n) }),
		"the catalogue keeps its order, whatever providers join it")
}

// An icon is an SVG drawing alone: no script, no handler, nothing fetched.
func TestEachProviderHasAnIconThatIsOnlyADrawing(t *testing.T) {
	for _, k := range builtin.Kinds(builtin.Options{}) {
		d := k.Describe()
		require.NotEmpty(t, d.Icon, d.Name)
		dec := xml.NewDecoder(bytes.NewReader(d.Icon))
		root := ""
		for {
			tok, err := dec.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err, "%s's icon is XML", d.Name)
			el, ok := tok.(xml.StartElement)
			if !ok {
				continue
			}
			if root == "" {
				root = el.Name.Local
			}
			assert.NotEqual(t, "script", el.Name.Local, d.Name)
			assert.NotEqual(t, "foreignObject", el.Name.Local, d.Name)
			for _, a := range el.Attr {
				assert.False(t, strings.HasPrefix(a.Name.Local, "on"), "%s: %s", d.Name, a.Name.Local)
				assert.NotEqual(t, "href", a.Name.Local, d.Name)
			}
		}
		assert.Equal(t, "svg", root, d.Name)
	}
}

// A provider declares find_created exactly when its clients can find what
// a lost create made.
func TestFindCreatedIsDeclaredByTheClientsThatFind(t *testing.T) {
	for _, k := range builtin.Kinds(builtin.Options{DataDir: t.TempDir()}) {
		d := k.Describe()
		client, err := k.Open(provider.Settings{URL: "http://127.0.0.1:9", Config: k.NewConfig()})
		require.NoError(t, err, d.Name)
		_, finds := client.(provider.Finder)
		assert.Equal(t, finds, d.Capabilities.Has(provider.FindCreated), d.Name)
	}
}

// A provider declares volume mounts exactly when its sandboxes have them.
func TestVolumeMountsAreDeclaredByTheProvidersThatMount(t *testing.T) {
	for _, k := range builtin.Kinds(builtin.Options{}) {
		d := k.Describe()
		_, mounts := provider.Schema(k)["properties"].(map[string]any)["volume_mounts"]
		assert.Equal(t, mounts, d.Capabilities.Has(provider.VolumeMounts), d.Name)
	}
}
