package local

import (
	"testing"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJailIDsAreTheOperatorsOrTheHosts(t *testing.T) {
	getenv := func(v string) func(string) string {
		return func(k string) string {
			if k == "AUXILIA_LOCAL_JAIL_IDS" {
				return v
			}
			return ""
		}
	}
	values, err := provider.ReadOperatorSettings(getenv("700000-700099"), Kind{})
	require.NoError(t, err)
	assert.Equal(t, bubblewrap.IDs{UID: 700000, GID: 700000, Count: 100}, ReadJailIDs(values))

	values, err = provider.ReadOperatorSettings(getenv(""), Kind{})
	require.NoError(t, err)
	assert.Equal(t, bubblewrap.HostIDs(), ReadJailIDs(values))

	for _, bad := range []string{"700000", "9-3", "60000-70000", "0-10"} {
		_, err := provider.ReadOperatorSettings(getenv(bad), Kind{})
		assert.ErrorContains(t, err, "AUXILIA_LOCAL_JAIL_IDS must", bad)
	}
}
