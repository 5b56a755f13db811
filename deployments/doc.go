// Package deployments holds the offline checks of the deployment artifacts
// beside it: the container image (Dockerfile, ../.dockerignore), the compose
// file with its nginx and env files, and the Helm chart. No container engine
// or cluster runs where these tests do, so each artifact is parsed and
// rendered with the tools' own libraries and its invariants are asserted.
//
// It is a module of its own, so that the server's module does not carry
// Helm's dependencies. Run it with `cd deployments && go test ./...`.
package deployments
