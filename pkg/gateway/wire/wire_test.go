package wire

import (
	"go/build"
	"strings"
	"testing"
)

// The Cloud Run provider reads the gateway's JSON through this package
// alone: it takes in nothing but the standard library, and the provider
// does not import the gateway itself.
func TestTheProviderTakesTheGatewaysTypesWithoutItsDependencies(t *testing.T) {
	own, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range own.Imports {
		if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") && imp != "github.com/auxilia/sandboxes/pkg/auxilia" {
			t.Errorf("wire imports %s: it may import only the standard library and the API's codes", imp)
		}
	}
	client, err := build.ImportDir("../../provider/cloudrun", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range client.Imports {
		if imp == "github.com/auxilia/sandboxes/pkg/gateway" || strings.HasPrefix(imp, "github.com/auxilia/sandboxes/pkg/gateway/") &&
			imp != "github.com/auxilia/sandboxes/pkg/gateway/wire" {
			t.Errorf("the Cloud Run provider imports %s: it reads the gateway's JSON through wire alone", imp)
		}
	}
	if !strings.Contains(strings.Join(client.Imports, " "), "github.com/auxilia/sandboxes/pkg/gateway/wire") {
		t.Error("the Cloud Run provider no longer reads the gateway's JSON through wire")
	}
}
