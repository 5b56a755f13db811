package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/api"
	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/builtin"
	"github.com/auxilia/sandboxes/pkg/provider/local"
	"github.com/auxilia/sandboxes/pkg/sso"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/token"
	metering "github.com/auxilia/sandboxes/pkg/usage"
)

// config is the server's configuration, read from the environment.
type config struct {
	DatabaseURL    string // DATABASE_URL: postgres://…, or empty for the embedded SQLite
	DataDir        string // AUXILIA_DATA_DIR
	Listen         string // AUXILIA_LISTEN
	MetricsListen  string // AUXILIA_METRICS_LISTEN: /metrics there alone; empty serves it on Listen
	BootstrapToken string // AUXILIA_BOOTSTRAP_TOKEN
	JSONLimit      int64  // AUXILIA_JSON_BODY_LIMIT (bytes)
	UploadLimit    int64  // AUXILIA_UPLOAD_BODY_LIMIT (bytes)
	LogLevel       string // AUXILIA_LOG_LEVEL: debug, info, warn, error
	SecretKeys     string // AUXILIA_SECRET_KEYS: comma-separated base64 keys, the first encrypts

	BlockPrivateURLs bool                    // AUXILIA_BLOCK_PRIVATE_URLS
	AllowedHostPaths []string                // AUXILIA_ALLOWED_HOST_PATHS: comma-separated folders volume mounts may use
	AllowedOrigins   []string                // AUXILIA_ALLOWED_ORIGINS: comma-separated origins whose pages may call the MCP endpoints
	Providers        provider.OperatorValues // the settings the providers declare, such as AUXILIA_LOCAL_PROVIDER
	LocalCeilings    local.Ceilings          // the most one local instance may ask for: its AUXILIA_LOCAL_MAX_* settings, or what the host has
	LocalJailIDs     bubblewrap.IDs          // the host users local instances' jails run as: AUXILIA_LOCAL_JAIL_IDS, or the host's
	LocalIndex       string                  // the index local instances install default packages from: AUXILIA_LOCAL_PACKAGE_INDEX
	ProbeTimeout     time.Duration           // AUXILIA_PROBE_TIMEOUT
	RunIdleTimeout   time.Duration           // AUXILIA_RUN_IDLE_TIMEOUT
	ReaperInterval   time.Duration           // AUXILIA_REAPER_INTERVAL
	ShutdownTimeout  time.Duration           // AUXILIA_SHUTDOWN_TIMEOUT
	TerminalGrace    time.Duration           // AUXILIA_TERMINAL_GRACE
	CreateTimeout    time.Duration           // AUXILIA_CREATE_TIMEOUT
	RateLimit        int                     // AUXILIA_RATE_LIMIT: requests per token per minute, 0 for none
	DBMaxConnections int                     // AUXILIA_DB_MAX_CONNECTIONS
	DBAtOnce         int                     // AUXILIA_DB_STATEMENTS_AT_ONCE
	HealthInterval   time.Duration           // AUXILIA_HEALTH_INTERVAL
	CostRates        metering.Rates          // AUXILIA_COST_RATES: provider:running=…,paused=… per instance-hour, kept=… per GiB-day, ;-separated
	CostCurrency     string                  // AUXILIA_COST_CURRENCY: the rates' ISO 4217 currency
	// Quotas are every workspace's limits where the operator set none of
	// its own: AUXILIA_QUOTA_INSTANCES, AUXILIA_QUOTA_INSTANCE_HOURS and
	// AUXILIA_QUOTA_THREADS (0: no limit), and the estimated-cost budget
	// per month, AUXILIA_BUDGET_COST (0: none).
	Quotas auxilia.Quotas
	// AlertWebhook is where alerts are posted (AUXILIA_ALERT_WEBHOOK_URL),
	// signed with AlertSecret (AUXILIA_ALERT_WEBHOOK_SECRET); never logged.
	AlertWebhook string
	AlertSecret  string
	// OIDC is single sign-on (AUXILIA_OIDC_*, AUXILIA_SESSION_*); nil when
	// AUXILIA_OIDC_ISSUER is unset.
	OIDC *sso.Config

	HTTP httpLimits
}

// httpLimits bound what a client may hold of the server, token or not.
type httpLimits struct {
	HeaderTimeout  time.Duration // AUXILIA_HTTP_HEADER_TIMEOUT: a request's headers must arrive within it
	BodyTimeout    time.Duration // AUXILIA_HTTP_BODY_TIMEOUT: and its body within this
	WriteTimeout   time.Duration // AUXILIA_HTTP_WRITE_TIMEOUT: each write of an answer must be taken within it
	IdleTimeout    time.Duration // AUXILIA_HTTP_IDLE_TIMEOUT: a keep-alive connection waits this long for its next request
	MaxConnections int           // AUXILIA_HTTP_MAX_CONNECTIONS: connections open at once
}

// defaultMaxConnections is AUXILIA_HTTP_MAX_CONNECTIONS unset (or 0).
const defaultMaxConnections = 1024

// loadConfig reads the environment and reports every bad variable at once.
func loadConfig(getenv func(string) string) (config, error) {
	cfg := config{
		DatabaseURL:    getenv("DATABASE_URL"),
		DataDir:        orDefault(getenv("AUXILIA_DATA_DIR"), "./data"),
		Listen:         orDefault(getenv("AUXILIA_LISTEN"), "127.0.0.1:8080"),
		MetricsListen:  getenv("AUXILIA_METRICS_LISTEN"),
		BootstrapToken: strings.TrimSpace(getenv("AUXILIA_BOOTSTRAP_TOKEN")),
		LogLevel:       orDefault(getenv("AUXILIA_LOG_LEVEL"), "info"),
		SecretKeys:     getenv("AUXILIA_SECRET_KEYS"),
	}
	var errs []error
	cfg.BlockPrivateURLs = boolean(getenv, "AUXILIA_BLOCK_PRIVATE_URLS", false, &errs)
	providers, err := provider.ReadOperatorSettings(getenv, builtin.Kinds(builtin.Options{})...)
	cfg.Providers = providers
	if err != nil {
		errs = append(errs, err)
	}
	if cfg.LocalCeilings, err = local.ReadCeilings(providers, cfg.DataDir); err != nil {
		errs = append(errs, err)
	}
	cfg.LocalJailIDs = local.ReadJailIDs(providers)
	cfg.LocalIndex = local.ReadPackageIndex(providers)
	cfg.ProbeTimeout = duration(getenv, "AUXILIA_PROBE_TIMEOUT", 10*time.Second, &errs)
	cfg.RunIdleTimeout = duration(getenv, "AUXILIA_RUN_IDLE_TIMEOUT", time.Hour, &errs)
	cfg.ReaperInterval = duration(getenv, "AUXILIA_REAPER_INTERVAL", time.Minute, &errs)
	cfg.ShutdownTimeout = duration(getenv, "AUXILIA_SHUTDOWN_TIMEOUT", 30*time.Second, &errs)
	cfg.TerminalGrace = duration(getenv, "AUXILIA_TERMINAL_GRACE", api.DefaultTerminalGrace, &errs)
	cfg.HealthInterval = duration(getenv, "AUXILIA_HEALTH_INTERVAL", 5*time.Minute, &errs)
	cfg.CreateTimeout = duration(getenv, "AUXILIA_CREATE_TIMEOUT", 15*time.Minute, &errs)
	cfg.RateLimit = count(getenv, "AUXILIA_RATE_LIMIT", &errs)
	cfg.DBMaxConnections = count(getenv, "AUXILIA_DB_MAX_CONNECTIONS", &errs)
	cfg.Quotas = auxilia.Quotas{
		Instances:       count(getenv, "AUXILIA_QUOTA_INSTANCES", &errs),
		InstanceHours:   count(getenv, "AUXILIA_QUOTA_INSTANCE_HOURS", &errs),
		ThreadsPerAgent: count(getenv, "AUXILIA_QUOTA_THREADS", &errs),
		CostBudget:      amount(getenv, "AUXILIA_BUDGET_COST", &errs),
	}
	cfg.AlertWebhook, cfg.AlertSecret = alertWebhook(getenv, &errs)
	if cfg.DBMaxConnections == 0 {
		cfg.DBMaxConnections = store.DefaultMaxConnections
	}
	cfg.DBAtOnce = statementsAtOnce(getenv, cfg.DBMaxConnections, &errs)
	cfg.HTTP = httpLimits{
		HeaderTimeout:  duration(getenv, "AUXILIA_HTTP_HEADER_TIMEOUT", 10*time.Second, &errs),
		BodyTimeout:    duration(getenv, "AUXILIA_HTTP_BODY_TIMEOUT", 5*time.Minute, &errs),
		WriteTimeout:   duration(getenv, "AUXILIA_HTTP_WRITE_TIMEOUT", time.Minute, &errs),
		IdleTimeout:    duration(getenv, "AUXILIA_HTTP_IDLE_TIMEOUT", 2*time.Minute, &errs),
		MaxConnections: count(getenv, "AUXILIA_HTTP_MAX_CONNECTIONS", &errs),
	}
	if cfg.HTTP.MaxConnections == 0 {
		cfg.HTTP.MaxConnections = defaultMaxConnections
	}
	cfg.CostRates, cfg.CostCurrency = costRates(getenv, &errs)
	cfg.AllowedHostPaths = folders(getenv, "AUXILIA_ALLOWED_HOST_PATHS", &errs)
	cfg.AllowedOrigins = origins(getenv, "AUXILIA_ALLOWED_ORIGINS", &errs)
	cfg.OIDC = oidcConfig(getenv, cfg.Listen, &errs)
	cfg.JSONLimit = byteSize(getenv, "AUXILIA_JSON_BODY_LIMIT", api.DefaultJSONLimit, &errs)
	cfg.UploadLimit = byteSize(getenv, "AUXILIA_UPLOAD_BODY_LIMIT", api.DefaultUploadLimit, &errs)
	if _, _, err := net.SplitHostPort(cfg.MetricsListen); cfg.MetricsListen != "" && err != nil {
		errs = append(errs, fmt.Errorf("AUXILIA_METRICS_LISTEN must be host:port (such as 127.0.0.1:9090), not %q", cfg.MetricsListen))
	}
	if u := cfg.DatabaseURL; u != "" && !strings.HasPrefix(u, "postgres://") && !strings.HasPrefix(u, "postgresql://") {
		errs = append(errs, errors.New("DATABASE_URL must be a postgres:// URL, or unset for the embedded database"))
	}
	if cfg.BootstrapToken != "" {
		if err := token.CheckValue(cfg.BootstrapToken); err != nil {
			errs = append(errs, fmt.Errorf("AUXILIA_BOOTSTRAP_TOKEN %w", err))
		}
	}
	switch cfg.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("AUXILIA_LOG_LEVEL must be debug, info, warn or error, not %q", cfg.LogLevel))
	}
	return cfg, errors.Join(errs...)
}

// statementsAtOnce is AUXILIA_DB_STATEMENTS_AT_ONCE: by default the
// store's, within the connections; set, at most the connections.
func statementsAtOnce(getenv func(string) string, conns int, errs *[]error) int {
	n := count(getenv, "AUXILIA_DB_STATEMENTS_AT_ONCE", errs)
	switch {
	case n == 0:
		return min(store.DefaultStatementsAtOnce(), conns)
	case n > conns:
		*errs = append(*errs, fmt.Errorf("AUXILIA_DB_STATEMENTS_AT_ONCE must be at most AUXILIA_DB_MAX_CONNECTIONS (%d), not %d", conns, n))
	}
	return n
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func byteSize(getenv func(string) string, name string, def int64, errs *[]error) int64 {
	v := getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 {
		*errs = append(*errs, fmt.Errorf("%s must be a positive number of bytes, not %q", name, v))
		return def
	}
	return n
}

func count(getenv func(string) string, name string, errs *[]error) int {
	v := getenv(name)
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		*errs = append(*errs, fmt.Errorf("%s must be a whole number (0 for no limit), not %q", name, v))
	}
	return n
}

func boolean(getenv func(string) string, name string, def bool, errs *[]error) bool {
	v := strings.ToLower(strings.TrimSpace(getenv(name)))
	switch v {
	case "":
		return def
	case "1", "true", "yes", "on":
		return true
	case "0", "false", "no", "off":
		return false
	}
	*errs = append(*errs, fmt.Errorf("%s must be true or false, not %q", name, v))
	return def
}

func duration(getenv func(string) string, name string, def time.Duration, errs *[]error) time.Duration {
	v := getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		*errs = append(*errs, fmt.Errorf("%s must be a positive duration such as 10s, not %q", name, v))
		return def
	}
	return d
}

// origins reads a comma-separated list of origins, as a browser writes them.
func origins(getenv func(string) string, name string, errs *[]error) []string {
	var out []string
	for _, o := range strings.Split(getenv(name), ",") {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		origin, err := api.ParseOrigin(o)
		if err != nil {
			*errs = append(*errs, fmt.Errorf("%s: %q %w", name, o, err))
			continue
		}
		out = append(out, origin)
	}
	return out
}

// folders reads a comma-separated list of absolute, normalised folders.
func folders(getenv func(string) string, name string, errs *[]error) []string {
	var out []string
	for _, f := range strings.Split(getenv(name), ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !path.IsAbs(f) || path.Clean(f) != f {
			*errs = append(*errs, fmt.Errorf("%s: %q must be an absolute, normalised folder", name, f))
			continue
		}
		out = append(out, f)
	}
	return out
}

// amount reads an amount of money, 0 or more (0 when unset: none).
func amount(getenv func(string) string, name string, errs *[]error) float64 {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return 0
	}
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || n < 0 || n != n || n > 1e12 {
		*errs = append(*errs, fmt.Errorf("%s must be an amount of 0 or more (0 for none), such as 500 or 99.50, not %q", name, v))
		return 0
	}
	return n
}

// alertWebhook reads the alert webhook's URL and secret. Neither is ever
// quoted back: a URL may carry a token in its path or query.
func alertWebhook(getenv func(string) string, errs *[]error) (string, string) {
	raw, secret := strings.TrimSpace(getenv("AUXILIA_ALERT_WEBHOOK_URL")), getenv("AUXILIA_ALERT_WEBHOOK_SECRET")
	if raw == "" {
		if secret != "" {
			*errs = append(*errs, errors.New("AUXILIA_ALERT_WEBHOOK_SECRET is set without AUXILIA_ALERT_WEBHOOK_URL"))
		}
		return "", ""
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		*errs = append(*errs, errors.New("AUXILIA_ALERT_WEBHOOK_URL must be an absolute http:// or https:// URL"))
		return "", ""
	}
	return raw, secret
}

// costRates reads the operator's rates per provider and their currency.
func costRates(getenv func(string) string, errs *[]error) (metering.Rates, string) {
	var kinds []string
	for _, k := range builtin.Kinds(builtin.Options{}) {
		kinds = append(kinds, k.Describe().Name)
	}
	rates, bad := metering.ParseRates(getenv("AUXILIA_COST_RATES"), kinds)
	for _, err := range bad {
		*errs = append(*errs, fmt.Errorf("AUXILIA_COST_RATES: %w", err))
	}
	currency := orDefault(strings.TrimSpace(getenv("AUXILIA_COST_CURRENCY")), metering.DefaultCurrency)
	if err := metering.CheckCurrency(currency); err != nil {
		*errs = append(*errs, fmt.Errorf("AUXILIA_COST_CURRENCY %w", err))
	}
	return rates, currency
}
