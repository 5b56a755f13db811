package gateway

import (
	"context"
	"sort"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOpenAPIDescribesEveryRoute keeps docs/cloudrun-gateway.yaml and the routes in step.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromFile("../../docs/cloudrun-gateway.yaml")
	require.NoError(t, err)
	require.NoError(t, doc.Validate(context.Background()))

	var documented, served []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented = append(documented, method+" "+path)
		}
	}
	h := newHarness(t)
	served = append(served, "GET /health")
	for _, e := range h.gw.endpoints() {
		for method := range e.methods {
			served = append(served, method+" "+e.path)
		}
	}
	sort.Strings(documented)
	sort.Strings(served)
	assert.Equal(t, served, documented)
}
