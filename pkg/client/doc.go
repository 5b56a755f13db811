// Package client is a typed Go client of the Auxilia sandboxes API.
//
// client.gen.go is generated from openapi.yaml by oapi-codegen (`go generate
// ./...` here; a test fails when it is stale): a method per operation,
// named by its operationId, and a type per schema. A sandbox is a union
// told apart by its provider: ValueByDiscriminator gives the provider's own
// type, whose Config is that provider's settings.
//
// The rest is written by hand, where generation is awkward: New sends the
// token as a bearer token, gives each create an Idempotency-Key and retries
// what is safe to retry (see New); Expect turns a problem answer into an
// *Error; Stream runs a command and yields its output as it arrives, and
// fails when the stream ends before the command's exit.
package client

//go:generate go -C ../.. tool oapi-codegen -config pkg/client/oapi-codegen.yaml openapi.yaml
