package opensandbox_test

import (
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
)

func TestTerminalThroughServerProxy(t *testing.T) {
	_, client := setup(t, opensandboxtest.Options{})
	providertest.RunTerminal(t, client, create(t, client))
}

func TestTerminalDirectToExecd(t *testing.T) {
	_, client := setup(t, opensandboxtest.Options{ExecdAccessToken: "execd-token", EndpointHeaders: map[string]string{"X-EXECD-ACCESS-TOKEN": "execd-token"}}, direct)
	providertest.RunTerminal(t, client, create(t, client))
}
