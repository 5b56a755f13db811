package validation

import (
	"net/netip"
	"regexp"
	"strings"

	"github.com/go-playground/validator/v10"
)

// formats are the string formats this package checks, by validate tag. The
// schema generator publishes each as a JSON Schema `format`.
var formats = map[string]struct {
	check   func(string) bool
	message string
}{
	"pip_requirement": {PipRequirement, "must be a pip requirement such as pandas==2.2.* (a name, optional [extras] and version clauses; no URLs, options or markers)"},
	"image_ref":       {ImageRef, "must be an image reference such as python:3.12-slim or ghcr.io/org/image:tag"},
	"region":          {Region, "must be a region name: lowercase letters, digits and dashes, such as us or eu"},
	"gcs_bucket":      {GCSBucket, "must be a Cloud Storage bucket name: 3-63 lowercase letters, digits, dashes, underscores or dots, starting and ending with a letter or digit"},
	"object_prefix":   {ObjectPrefix, "must be a folder-like prefix of letters, digits and ._-/ (no leading slash, no ..)"},
	"snapshot_name":   {SnapshotName, "must be a snapshot name of letters, digits and ._:/@- (at most 255 characters)"},
	"env_name":        {EnvName, "must be a variable name: letters, digits and underscores, not starting with a digit (at most 256 characters)"},
	"egress_target":   {EgressTarget, "must be a domain (example.com, *.example.com), an IP address (203.0.113.7) or a network in CIDR form (198.51.100.0/24)"},
}

// IsFormat reports whether tag is one of this package's string formats.
func IsFormat(tag string) bool {
	_, ok := formats[tag]
	return ok
}

func registerFormats(v *validator.Validate) {
	for tag, f := range formats {
		check := f.check
		if err := v.RegisterValidation(tag, func(fl validator.FieldLevel) bool {
			return check(fl.Field().String())
		}); err != nil {
			panic(err)
		}
	}
}

var (
	versionClause  = `(?:===|==|!=|<=|>=|~=|<|>) *[A-Za-z0-9.*+!_-]+`
	pipRequirement = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?` +
		`(?:\[[A-Za-z0-9._-]+(?: *, *[A-Za-z0-9._-]+)*\])?` +
		`(?: *` + versionClause + `(?: *, *` + versionClause + `)*)?$`)
)

// PipRequirement accepts a requirement specifier as pip takes it on its
// command line (PEP 508 without URLs or environment markers): a package
// name, optional extras and version clauses. Such a string may reach a shell,
// so nothing else passes: no quotes, no options, no line breaks or tabs
// (only plain spaces, around the clauses).
func PipRequirement(s string) bool {
	return len(s) <= 200 && pipRequirement.MatchString(s)
}

var (
	imageDomain    = `(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*(?::[0-9]+)?/)?`
	imagePathPart  = `[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*`
	imageReference = regexp.MustCompile(`^` + imageDomain + imagePathPart + `(?:/` + imagePathPart + `)*` +
		`(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?` +
		`(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?$`)
)

// ImageRef accepts a container image reference: [registry[:port]/]path[:tag][@digest].
func ImageRef(s string) bool {
	name, _, _ := strings.Cut(s, "@")
	if i := strings.LastIndex(name, ":"); i > strings.LastIndex(name, "/") {
		name = name[:i]
	}
	return len(name) <= 255 && imageReference.MatchString(s)
}

var region = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$`)

// Region accepts a provider region (target) name.
func Region(s string) bool { return region.MatchString(s) }

var bucketPart = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?$`)

// GCSBucket accepts a Cloud Storage bucket name by Google's published rules.
func GCSBucket(s string) bool {
	if len(s) < 3 || len(s) > 222 || (len(s) > 63 && !strings.Contains(s, ".")) {
		return false
	}
	if strings.HasPrefix(s, "goog") || strings.Contains(s, "google") || strings.Contains(s, "g00gle") {
		return false
	}
	if _, err := netip.ParseAddr(s); err == nil {
		return false
	}
	for _, part := range strings.Split(s, ".") {
		if len(part) == 0 || len(part) > 63 || !bucketPart.MatchString(part) {
			return false
		}
	}
	return true
}

var objectPrefix = regexp.MustCompile(`^[A-Za-z0-9._/-]*$`)

// ObjectPrefix accepts a storage object name prefix (a folder path, maybe empty).
func ObjectPrefix(s string) bool {
	if len(s) > 512 || strings.HasPrefix(s, "/") || strings.Contains(s, "//") {
		return false
	}
	for _, part := range strings.Split(s, "/") {
		if part == ".." || part == "." {
			return false
		}
	}
	return objectPrefix.MatchString(s)
}

var snapshotName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,254}$`)

// SnapshotName accepts a provider snapshot (pre-built image) name.
func SnapshotName(s string) bool { return snapshotName.MatchString(s) }

var domainName = regexp.MustCompile(`^(?:\*\.)?(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$`)

// EgressTarget accepts what an egress rule may name: a domain, optionally
// with a leading "*." for its subdomains; an IP address; or a network in
// CIDR form with no host bits set (198.51.100.0/24, not 198.51.100.7/24).
func EgressTarget(s string) bool {
	if _, err := netip.ParseAddr(s); err == nil {
		return !strings.Contains(s, "%") // a zone names a host's interface, not a destination
	}
	if p, err := netip.ParsePrefix(s); err == nil {
		return p == p.Masked()
	}
	return len(s) <= 253 && domainName.MatchString(s)
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,255}$`)

// EnvName accepts an environment variable's name as shells take it.
func EnvName(s string) bool { return envName.MatchString(s) }
