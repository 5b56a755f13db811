package app_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/auxilia/sandboxes/api"
	"github.com/auxilia/sandboxes/pkg/app"
	"github.com/auxilia/sandboxes/pkg/secret"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// settings are the fields of api.Config the caller of App.API gives: the
// server's tuning, which a test may set as it needs. Every other field is
// a part of the server, which only the app wires. Sessions is there
// only where the operator set up single sign-on (NewSessions makes it).
var settings = []string{"Log", "RunStartTimeout", "SPA", "Metrics", "MetricsHandler", "RateLimit",
	"TerminalGrace", "Terminals", "AllowedOrigins", "JSONLimit", "UploadLimit", "Sessions"}

// The serve command and the API's tests build their server with App.API:
// a part added to api.Config and not wired there fails here, before a test
// server and the real one can differ.
func TestAPIWiresEveryPartOfTheServer(t *testing.T) {
	keys, err := secret.ParseKeys(secret.NewKey())
	require.NoError(t, err)
	a := app.New(storetest.Open(t, store.SQLite), keys, app.Options{DataDir: t.TempDir()})
	given := api.Config{RateLimit: 7, Terminals: new(api.Terminals)}
	cfg := reflect.ValueOf(a.API(given))
	for i := range cfg.NumField() {
		name := cfg.Type().Field(i).Name
		if slices.Contains(settings, name) {
			continue
		}
		assert.False(t, cfg.Field(i).IsZero(), "App.API leaves api.Config.%s unset: wire it there, or list it in settings", name)
	}
	assert.Equal(t, 7, cfg.FieldByName("RateLimit").Interface(), "the settings given are kept")
	assert.Same(t, given.Terminals, cfg.FieldByName("Terminals").Interface())
}
