// Package api serves Auxilia's REST API over HTTP with Echo: routing,
// authentication, problem+json errors, pagination, idempotency and ETags.
// Handlers translate between HTTP and the services; they never touch storage.
//
//	@title						Auxilia sandboxes API
//	@version					1.0
//	@description				Register code-execution sandboxes, bind them to agents, and run agents' tools in live sandbox instances.
//	@BasePath					/
//	@securityDefinitions.apikey	BearerAuth
//	@in							header
//	@name						Authorization
//	@description				An API token: "Bearer <token>".
package api
