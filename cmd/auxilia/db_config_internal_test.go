package main

import (
	"testing"

	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStatementsAtOnceDefaultToTheStoresWithinTheConnections(t *testing.T) {
	cfg, err := loadConfig(envOf(nil))
	require.NoError(t, err)
	assert.Equal(t, store.DefaultMaxConnections, cfg.DBMaxConnections)
	assert.Equal(t, min(store.DefaultStatementsAtOnce(), store.DefaultMaxConnections), cfg.DBAtOnce)

	cfg, err = loadConfig(envOf(map[string]string{"AUXILIA_DB_MAX_CONNECTIONS": "2"}))
	require.NoError(t, err)
	assert.Equal(t, 2, cfg.DBAtOnce, "never more than the connections")

	cfg, err = loadConfig(envOf(map[string]string{"AUXILIA_DB_STATEMENTS_AT_ONCE": "12"}))
	require.NoError(t, err)
	assert.Equal(t, 12, cfg.DBAtOnce)
}

func TestStatementsAtOncePastTheConnectionsAreRefused(t *testing.T) {
	_, err := loadConfig(envOf(map[string]string{"AUXILIA_DB_MAX_CONNECTIONS": "8", "AUXILIA_DB_STATEMENTS_AT_ONCE": "9"}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "AUXILIA_DB_STATEMENTS_AT_ONCE must be at most AUXILIA_DB_MAX_CONNECTIONS (8), not 9")

	_, err = loadConfig(envOf(map[string]string{"AUXILIA_DB_STATEMENTS_AT_ONCE": "-1"}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "AUXILIA_DB_STATEMENTS_AT_ONCE")
}
