package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/auxilia/sandboxes/api"
)

// config is the server's configuration, read from the environment.
type config struct {
	DatabaseURL    string // DATABASE_URL: postgres://…, or empty for the embedded SQLite
	DataDir        string // AUXILIA_DATA_DIR
	Listen         string // AUXILIA_LISTEN
	BootstrapToken string // AUXILIA_BOOTSTRAP_TOKEN
	JSONLimit      int64  // AUXILIA_JSON_BODY_LIMIT (bytes)
	UploadLimit    int64  // AUXILIA_UPLOAD_BODY_LIMIT (bytes)
	LogLevel       string // AUXILIA_LOG_LEVEL: debug, info, warn, error
}

// loadConfig reads the environment and reports every bad variable at once.
func loadConfig(getenv func(string) string) (config, error) {
	cfg := config{
		DatabaseURL:    getenv("DATABASE_URL"),
		DataDir:        orDefault(getenv("AUXILIA_DATA_DIR"), "./data"),
		Listen:         orDefault(getenv("AUXILIA_LISTEN"), "127.0.0.1:8080"),
		BootstrapToken: strings.TrimSpace(getenv("AUXILIA_BOOTSTRAP_TOKEN")),
		LogLevel:       orDefault(getenv("AUXILIA_LOG_LEVEL"), "info"),
	}
	var errs []error
	cfg.JSONLimit = byteSize(getenv, "AUXILIA_JSON_BODY_LIMIT", api.DefaultJSONLimit, &errs)
	cfg.UploadLimit = byteSize(getenv, "AUXILIA_UPLOAD_BODY_LIMIT", api.DefaultUploadLimit, &errs)
	if u := cfg.DatabaseURL; u != "" && !strings.HasPrefix(u, "postgres://") && !strings.HasPrefix(u, "postgresql://") {
		errs = append(errs, errors.New("DATABASE_URL must be a postgres:// URL, or unset for the embedded database"))
	}
	switch cfg.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("AUXILIA_LOG_LEVEL must be debug, info, warn or error, not %q", cfg.LogLevel))
	}
	return cfg, errors.Join(errs...)
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
