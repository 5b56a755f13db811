// Package sandboxes carries the REST contract, so that the server serves
// exactly the document committed at the repository's root.
package sandboxes

import _ "embed"

// OpenAPI is openapi.yaml, generated from the api package's annotations by `make openapi`.
//
//go:embed openapi.yaml
var OpenAPI []byte
