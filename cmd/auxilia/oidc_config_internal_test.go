package main

import (
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestOIDCConfigIsOffUnlessAnIssuerIsSet(t *testing.T) {
	cfg, err := loadConfig(envOf(map[string]string{"AUXILIA_OIDC_CLIENT_ID": "ignored"}))
	require.NoError(t, err)
	assert.Nil(t, cfg.OIDC)
}

func TestOIDCConfigReadsEverySetting(t *testing.T) {
	cfg, err := loadConfig(envOf(map[string]string{
		"AUXILIA_LISTEN":                "127.0.0.1:9000",
		"AUXILIA_OIDC_ISSUER":           "https://login.example.com",
		"AUXILIA_OIDC_CLIENT_ID":        "auxilia",
		"AUXILIA_OIDC_CLIENT_SECRET":    "s3cret",
		"AUXILIA_OIDC_GROUP_ROLES":      "ops=default:admin,devs=default:member",
		"AUXILIA_OIDC_REFRESH_INTERVAL": "2m",
		"AUXILIA_SESSION_IDLE_TIMEOUT":  "30m",
	}))
	require.NoError(t, err)
	o := cfg.OIDC
	require.NotNil(t, o)
	assert.Equal(t, "http://127.0.0.1:9000/auth/oidc/callback", o.RedirectURL)
	assert.Equal(t, "login.example.com", o.ProviderName)
	assert.Equal(t, []string{"openid", "profile", "email", "offline_access"}, o.Scopes)
	assert.Equal(t, "groups", o.GroupsClaim)
	assert.Equal(t, 2*time.Minute, o.Refresh)
	assert.Equal(t, 30*time.Minute, o.Idle)
	assert.Equal(t, 12*time.Hour, o.Lifetime)
	assert.Equal(t, auxilia.RoleAdmin, o.Groups.Roles([]string{"ops"})["default"])
}

func TestOIDCConfigNamesEveryBadSetting(t *testing.T) {
	_, err := loadConfig(envOf(map[string]string{
		"AUXILIA_OIDC_ISSUER":       "login.example.com",
		"AUXILIA_OIDC_SCOPES":       "email",
		"AUXILIA_OIDC_GROUP_ROLES":  "devs=default:owner",
		"AUXILIA_SESSION_LIFETIME":  "0s",
		"AUXILIA_OIDC_REDIRECT_URL": "/callback",
	}))
	require.Error(t, err)
	for _, name := range []string{"AUXILIA_OIDC_ISSUER", "AUXILIA_OIDC_CLIENT_ID", "AUXILIA_OIDC_CLIENT_SECRET",
		"AUXILIA_OIDC_SCOPES", "AUXILIA_OIDC_GROUP_ROLES", "AUXILIA_SESSION_LIFETIME", "AUXILIA_OIDC_REDIRECT_URL"} {
		assert.Contains(t, err.Error(), name)
	}
	assert.NotContains(t, err.Error(), "s3cret")
}
