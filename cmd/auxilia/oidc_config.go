package main

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/auxilia/sandboxes/pkg/sso"
)

// oidcConfig reads single sign-on's settings. With AUXILIA_OIDC_ISSUER
// unset it returns nil: people sign in with tokens only.
func oidcConfig(getenv func(string) string, listen string, errs *[]error) *sso.Config {
	issuer := strings.TrimSpace(getenv("AUXILIA_OIDC_ISSUER"))
	if issuer == "" {
		return nil
	}
	bad := func(format string, a ...any) { *errs = append(*errs, fmt.Errorf(format, a...)) }
	cfg := sso.Config{
		Issuer:       issuer,
		ClientID:     strings.TrimSpace(getenv("AUXILIA_OIDC_CLIENT_ID")),
		ClientSecret: getenv("AUXILIA_OIDC_CLIENT_SECRET"),
		RedirectURL:  orDefault(strings.TrimSpace(getenv("AUXILIA_OIDC_REDIRECT_URL")), "http://"+listen+"/auth/oidc/callback"),
		Scopes:       strings.Fields(orDefault(getenv("AUXILIA_OIDC_SCOPES"), sso.DefaultScopes)),
		GroupsClaim:  orDefault(strings.TrimSpace(getenv("AUXILIA_OIDC_GROUPS_CLAIM")), sso.DefaultGroupsClaim),
		Lifetime:     duration(getenv, "AUXILIA_SESSION_LIFETIME", sso.DefaultLifetime, errs),
		Idle:         duration(getenv, "AUXILIA_SESSION_IDLE_TIMEOUT", sso.DefaultIdle, errs),
		Refresh:      duration(getenv, "AUXILIA_OIDC_REFRESH_INTERVAL", sso.DefaultRefresh, errs),
	}
	if u, err := url.Parse(issuer); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		bad("AUXILIA_OIDC_ISSUER must be the provider's issuer URL, such as https://login.example.com")
	} else {
		cfg.ProviderName = orDefault(strings.TrimSpace(getenv("AUXILIA_OIDC_PROVIDER_NAME")), u.Hostname())
	}
	if u, err := url.Parse(cfg.RedirectURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		bad("AUXILIA_OIDC_REDIRECT_URL must be this server's callback URL, such as https://auxilia.example.com/auth/oidc/callback")
	}
	if cfg.ClientID == "" {
		bad("AUXILIA_OIDC_CLIENT_ID is required with AUXILIA_OIDC_ISSUER")
	}
	if cfg.ClientSecret == "" {
		bad("AUXILIA_OIDC_CLIENT_SECRET is required with AUXILIA_OIDC_ISSUER")
	}
	hasOpenID := false
	for _, s := range cfg.Scopes {
		hasOpenID = hasOpenID || s == "openid"
	}
	if !hasOpenID {
		bad("AUXILIA_OIDC_SCOPES must include openid")
	}
	groups, err := sso.ParseGroupRoles(getenv("AUXILIA_OIDC_GROUP_ROLES"))
	if err != nil {
		*errs = append(*errs, errors.New("AUXILIA_OIDC_GROUP_ROLES "+err.Error()))
	}
	cfg.Groups = groups
	for name, d := range map[string]int64{"AUXILIA_SESSION_LIFETIME": int64(cfg.Lifetime),
		"AUXILIA_SESSION_IDLE_TIMEOUT": int64(cfg.Idle), "AUXILIA_OIDC_REFRESH_INTERVAL": int64(cfg.Refresh)} {
		if d <= 0 {
			bad("%s must be more than 0", name)
		}
	}
	return &cfg
}
