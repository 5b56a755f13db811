package api

import (
	"slices"
	"testing"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// The action filter accepts every action the middleware records.
func TestEveryAuditedRouteActionIsListed(t *testing.T) {
	for route, spec := range auditedRoutes {
		if !slices.Contains(auxilia.AuditActions, spec.action) {
			t.Errorf("%s records %q, missing from auxilia.AuditActions", route, spec.action)
		}
		if !slices.Contains(auxilia.AuditResourceTypes, spec.resource) {
			t.Errorf("%s records resource %q, missing from auxilia.AuditResourceTypes", route, spec.resource)
		}
	}
}
