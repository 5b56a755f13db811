package gateway

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
)

// DefaultGCSEndpoint is the Cloud Storage JSON API.
const DefaultGCSEndpoint = "https://storage.googleapis.com"

// Config is the gateway's deployment settings.
type Config struct {
	// Host and Port are where the gateway listens; an empty Host means every interface.
	Host string
	Port string
	// Secret is the bearer secret callers present; empty refuses every authenticated call.
	Secret string
	// AllowEgress lets sandboxes that ask for it reach the network.
	AllowEgress bool
	// DataDir holds one folder per sandbox.
	DataDir string
	// GCSEndpoint is the base of the Cloud Storage JSON API.
	GCSEndpoint string
	// GCSAuth is how the gateway authenticates to Cloud Storage: "metadata"
	// (Application Default Credentials: on Cloud Run, the service identity
	// from the metadata server), "static" or "none".
	GCSAuth string
	// GCSToken is the access token when GCSAuth is "static".
	GCSToken string
	// BwrapPath is the bubblewrap binary; empty looks it up on PATH.
	BwrapPath string
	// SandboxMemoryMB and SandboxMaxProcesses bound each sandbox's commands
	// together (in a cgroup where the gateway can make one, per process
	// otherwise); 0 = no limit.
	SandboxMemoryMB     int
	SandboxMaxProcesses int
	// SandboxMaxFileMB is the largest file a command may write; 0 = no limit.
	SandboxMaxFileMB int
	// MaxSandboxes is the most sandboxes the gateway holds at once (they
	// share the instance's memory and disk); 0 = no limit.
	MaxSandboxes int
	// IdleTTL removes sandboxes unused for this long; 0 keeps them until deleted.
	IdleTTL time.Duration
	// MaxSnapshotBytes bounds a snapshot archive, and what a restore may unpack.
	MaxSnapshotBytes int64
	// JailIDs are the host users and groups sandboxes' commands run as, one
	// of each per sandbox, when the gateway runs as root (none:
	// bubblewrap.HostIDs).
	JailIDs bubblewrap.IDs
}

// ConfigFromEnv reads the configuration from environment variables.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := Config{
		Host:             getenv("GATEWAY_HOST"),
		Port:             orDefault(getenv("PORT"), "8080"),
		Secret:           getenv("GATEWAY_SECRET"),
		DataDir:          orDefault(getenv("GATEWAY_DATA_DIR"), filepath.Join(os.TempDir(), "auxilia-cloudrun-gateway")),
		GCSEndpoint:      strings.TrimSuffix(orDefault(getenv("GATEWAY_GCS_ENDPOINT"), DefaultGCSEndpoint), "/"),
		GCSAuth:          getenv("GATEWAY_GCS_AUTH"),
		GCSToken:         getenv("GATEWAY_GCS_TOKEN"),
		BwrapPath:        getenv("GATEWAY_BWRAP"),
		IdleTTL:          24 * time.Hour,
		MaxSnapshotBytes: 1 << 30,
	}
	var err error
	if c.SandboxMemoryMB, err = intFromEnv(getenv, "GATEWAY_SANDBOX_MEMORY_MB", 2048, 0, 1<<20); err != nil {
		return c, err
	}
	if c.SandboxMaxProcesses, err = intFromEnv(getenv, "GATEWAY_SANDBOX_MAX_PROCESSES", 512, 0, 1<<16); err != nil {
		return c, err
	}
	if c.SandboxMaxFileMB, err = intFromEnv(getenv, "GATEWAY_SANDBOX_MAX_FILE_MB", 1024, 0, 1<<20); err != nil {
		return c, err
	}
	if c.MaxSandboxes, err = intFromEnv(getenv, "GATEWAY_MAX_SANDBOXES", 0, 0, 1<<16); err != nil {
		return c, err
	}
	if v := getenv("GATEWAY_ALLOW_EGRESS"); v != "" {
		if c.AllowEgress, err = strconv.ParseBool(v); err != nil {
			return c, fmt.Errorf("GATEWAY_ALLOW_EGRESS must be true or false, not %q", v)
		}
	}
	if v := getenv("GATEWAY_IDLE_TTL"); v != "" {
		if c.IdleTTL, err = time.ParseDuration(v); err != nil || c.IdleTTL < 0 {
			return c, fmt.Errorf("GATEWAY_IDLE_TTL must be a duration such as 24h (0 keeps sandboxes), not %q", v)
		}
	}
	if v := getenv("GATEWAY_MAX_SNAPSHOT_MB"); v != "" {
		mb, err := strconv.ParseInt(v, 10, 64)
		if err != nil || mb < 1 || mb > 1<<20 {
			return c, fmt.Errorf("GATEWAY_MAX_SNAPSHOT_MB must be a number of MiB from 1 to 1048576, not %q", v)
		}
		c.MaxSnapshotBytes = mb << 20
	}
	if v := getenv("GATEWAY_JAIL_IDS"); v != "" {
		if c.JailIDs, err = bubblewrap.ParseIDs(v); err != nil {
			return c, fmt.Errorf("GATEWAY_JAIL_IDS %w", err)
		}
	}
	if n, err := strconv.Atoi(c.Port); err != nil || n < 0 || n > 65535 {
		return c, fmt.Errorf("PORT must be a port number, not %q", c.Port)
	}
	switch {
	case c.GCSAuth == "" && c.GCSToken != "":
		c.GCSAuth = "static"
	case c.GCSAuth == "":
		c.GCSAuth = "metadata"
	}
	switch c.GCSAuth {
	case "metadata", "none":
	case "static":
		if c.GCSToken == "" {
			return c, fmt.Errorf("GATEWAY_GCS_AUTH=static needs GATEWAY_GCS_TOKEN")
		}
	default:
		return c, fmt.Errorf("GATEWAY_GCS_AUTH must be metadata, static or none, not %q", c.GCSAuth)
	}
	if !strings.HasPrefix(c.GCSEndpoint, "http://") && !strings.HasPrefix(c.GCSEndpoint, "https://") {
		return c, fmt.Errorf("GATEWAY_GCS_ENDPOINT must be an http(s) URL, not %q", c.GCSEndpoint)
	}
	return c, nil
}

// intFromEnv reads a whole number in [lo, hi], or def when unset.
func intFromEnv(getenv func(string) string, key string, def, lo, hi int) (int, error) {
	v := getenv(key)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%s must be a number from %d to %d (0 = no limit), not %q", key, lo, hi, v)
	}
	return n, nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
