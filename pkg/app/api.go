package app

import (
	sandboxes "github.com/auxilia/sandboxes"
	"github.com/auxilia/sandboxes/api"
)

// API is the API server's configuration on the app: the services, the
// stores they answer from and the REST contract come from the app, the
// rest (logging, limits, terminals, the web app, metrics) from settings.
// The serve command and the API's tests both build their server with it,
// so that a test server cannot be wired differently from the real one.
func (a *App) API(settings api.Config) api.Config {
	c := settings
	c.DB = a.DB
	c.Tokens = a.Tokens
	c.Sandboxes = a.Sandboxes
	c.Agents = a.Agents
	c.Runs = a.Runs
	c.Pools = a.Runs
	c.Networks = a.Runs
	c.Instances = a.Runs
	c.Audit = a.Audit
	c.Usage = a.Usage
	c.Quotas = a.Quotas
	c.Alerts = AlertLog{a.DB}
	c.People = a.People
	c.Idempotency = a.Requests
	c.Keys = a.Keys
	c.Rates = a.Requests
	c.OpenAPI = sandboxes.OpenAPI
	return c
}
