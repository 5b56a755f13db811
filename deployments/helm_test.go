package deployments

import (
	"cmp"
	"fmt"
	"log"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/releaseutil"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

const (
	chartDir    = "helm/auxilia"
	releaseName = "auxilia"
	namespace   = "sandboxes"
)

// kubeVersion is the cluster the chart is rendered for: the oldest its
// Chart.yaml accepts would do, a current one finds deprecations.
var kubeVersion = chartutil.KubeVersion{Version: "v1.31.0", Major: "1", Minor: "31"}

// valueFiles are the value sets every check runs on: the chart's defaults
// with only the two settings that have none, and every option switched.
var valueFiles = []string{"ci/minimal-values.yaml", "ci/full-values.yaml"}

func TestChartLints(t *testing.T) {
	// Lint mode logs the required values it lets pass; keep them with the test.
	log.SetOutput(testLog{t})
	defer log.SetOutput(os.Stderr)
	// The bare defaults lint too: lint mode lets required values pass.
	for _, file := range append([]string{""}, valueFiles...) {
		t.Run(cmp.Or(file, "defaults"), func(t *testing.T) {
			vals := valuesFile(t, file)
			l := lint.AllWithKubeVersion(chartDir, vals, namespace, &kubeVersion)
			for _, m := range l.Messages {
				if m.Severity >= support.WarningSev {
					t.Error(m)
				} else {
					t.Log(m)
				}
			}
		})
	}
}

// TestChartRefuses checks that a release that would not run is refused at
// render time, with a message that says what to set.
func TestChartRefuses(t *testing.T) {
	minimal := func(extra map[string]any) map[string]any {
		vals := valuesFile(t, "ci/minimal-values.yaml")
		maps.Copy(vals, extra)
		return vals
	}
	tests := []struct {
		name string
		vals map[string]any
		want string
	}{
		{"the bare defaults: no database", map[string]any{}, "database.url or database.existingSecret is required"},
		{"no keys", map[string]any{"database": map[string]any{"url": "postgres://db/auxilia"}}, "secretKeys.value or secretKeys.existingSecret is required"},
		{"a database that is not Postgres", minimal(map[string]any{"database": map[string]any{"url": "mysql://db/auxilia"}}), "/database/url"},
		{"the local provider switched on", minimal(map[string]any{"env": map[string]any{"AUXILIA_LOCAL_PROVIDER": "on"}}), "AUXILIA_LOCAL_PROVIDER"},
		{"a key in plain env", minimal(map[string]any{"env": map[string]any{"AUXILIA_SECRET_KEYS": "x"}}), "AUXILIA_SECRET_KEYS: give it through"},
		{"the local provider in extraEnv", minimal(map[string]any{"extraEnv": []any{map[string]any{"name": "AUXILIA_LOCAL_PROVIDER", "value": "on"}}}), "AUXILIA_LOCAL_PROVIDER"},
		{"the listen address", minimal(map[string]any{"env": map[string]any{"AUXILIA_LISTEN": ":9090"}}), "AUXILIA_LISTEN is set by the chart"},
		{"the metrics address", minimal(map[string]any{"env": map[string]any{"AUXILIA_METRICS_LISTEN": ":8080"}}), "AUXILIA_METRICS_LISTEN is set by the chart"},
		{"a non-string env value", minimal(map[string]any{"env": map[string]any{"AUXILIA_JSON_BODY_LIMIT": 1048576}}), "AUXILIA_JSON_BODY_LIMIT"},
		{"a grace period the shutdown does not fit in", minimal(map[string]any{"terminationGracePeriodSeconds": 30}), "terminationGracePeriodSeconds (30) must exceed"},
		{"a grace period without the streams' last seconds", minimal(map[string]any{"terminationGracePeriodSeconds": 40}), "must exceed"},
		{"a mistyped value", minimal(map[string]any{"replicas": 3}), "replicas"},
		{"both PDB bounds", minimal(map[string]any{"podDisruptionBudget": map[string]any{"minAvailable": 1}}), "not both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := renderChart(tt.vals)
			if err == nil {
				t.Fatal("rendered; want a refusal")
			}
			t.Log(err)
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("refused with %q; want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestChartRenders(t *testing.T) {
	for _, file := range valueFiles {
		t.Run(file, func(t *testing.T) {
			vals := valuesFile(t, file)
			r, err := renderChart(vals)
			if err != nil {
				t.Fatal(err)
			}
			checkRelease(t, r, chartValues(t, vals))
		})
	}
	// The label sandboxes let in stays the server's, whatever podLabels say.
	t.Run("podLabels naming the server's label", func(t *testing.T) {
		vals := valuesFile(t, "ci/full-values.yaml")
		vals["podLabels"] = map[string]any{"auxilia/server": "false", "example.com/tier": "backend"}
		r, err := renderChart(vals)
		if err != nil {
			t.Fatal(err)
		}
		checkRelease(t, r, chartValues(t, vals))
		if got := only[*appsv1.Deployment](t, r, false).Spec.Template.Labels["example.com/tier"]; got != "backend" {
			t.Errorf("podLabels' other labels are lost: example.com/tier=%q", got)
		}
	})
	// Names stay DNS labels whatever the release is called.
	t.Run("a long name", func(t *testing.T) {
		vals := valuesFile(t, "ci/minimal-values.yaml")
		vals["fullnameOverride"] = strings.Repeat("a", 70)
		r, err := renderChart(vals)
		if err != nil {
			t.Fatal(err)
		}
		for key := range r.objects {
			if _, name, _ := strings.Cut(key, "/"); len(name) > 63 {
				t.Errorf("%s: the name is longer than 63 characters", key)
			}
		}
		checkRelease(t, r, chartValues(t, vals))
	})
}

// rendered is a release as Helm would install it: hooks apart, and every
// manifest decoded strictly into its Kubernetes type.
type rendered struct {
	notes   string
	hooks   []*release.Hook
	objects map[string]any // by "Kind/name"
	isHook  map[string]bool
}

func (r rendered) get(kind, name string) (any, bool) {
	o, ok := r.objects[kind+"/"+name]
	return o, ok
}

func renderChart(vals map[string]any) (rendered, error) {
	ch, err := loader.Load(chartDir)
	if err != nil {
		return rendered{}, err
	}
	caps := chartutil.DefaultCapabilities.Copy()
	caps.KubeVersion = kubeVersion
	if !chartutil.IsCompatibleRange(ch.Metadata.KubeVersion, kubeVersion.String()) {
		return rendered{}, fmt.Errorf("the chart's kubeVersion %q does not accept %s", ch.Metadata.KubeVersion, kubeVersion)
	}
	opts := chartutil.ReleaseOptions{Name: releaseName, Namespace: namespace, Revision: 1, IsInstall: true}
	top, err := chartutil.ToRenderValues(ch, vals, opts, caps)
	if err != nil {
		return rendered{}, err
	}
	// Strict: a template that reads a value the chart does not have fails.
	files, err := engine.Engine{Strict: true}.Render(ch, top)
	if err != nil {
		return rendered{}, err
	}
	r := rendered{objects: map[string]any{}, isHook: map[string]bool{}}
	for name, content := range files {
		if strings.HasSuffix(name, "NOTES.txt") {
			r.notes = content
			delete(files, name)
		}
	}
	hooks, manifests, err := releaseutil.SortManifests(files, caps.APIVersions, releaseutil.InstallOrder)
	if err != nil {
		return rendered{}, err
	}
	r.hooks = hooks
	add := func(path, content string, hook bool) error {
		obj, key, err := decodeManifest(content)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if _, dup := r.objects[key]; dup {
			return fmt.Errorf("%s: a second %s", path, key)
		}
		r.objects[key] = obj
		r.isHook[key] = hook
		return nil
	}
	for _, m := range manifests {
		if err := add(m.Name, m.Content, false); err != nil {
			return rendered{}, err
		}
	}
	for _, h := range hooks {
		if err := add(h.Path, h.Manifest, true); err != nil {
			return rendered{}, err
		}
	}
	return r, nil
}

// decodeManifest parses a manifest into the Kubernetes type of its kind,
// refusing fields that type does not have.
func decodeManifest(content string) (any, string, error) {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	if err := yaml.Unmarshal([]byte(content), &head); err != nil {
		return nil, "", err
	}
	types := map[string]any{
		"apps/v1/Deployment":                              &appsv1.Deployment{},
		"v1/Service":                                      &corev1.Service{},
		"v1/ServiceAccount":                               &corev1.ServiceAccount{},
		"v1/Secret":                                       &corev1.Secret{},
		"batch/v1/Job":                                    &batchv1.Job{},
		"autoscaling/v2/HorizontalPodAutoscaler":          &autoscalingv2.HorizontalPodAutoscaler{},
		"policy/v1/PodDisruptionBudget":                   &policyv1.PodDisruptionBudget{},
		"networking.k8s.io/v1/Ingress":                    &networkingv1.Ingress{},
		"rbac.authorization.k8s.io/v1/ClusterRole":        &rbacv1.ClusterRole{},
		"rbac.authorization.k8s.io/v1/ClusterRoleBinding": &rbacv1.ClusterRoleBinding{},
		"rbac.authorization.k8s.io/v1/RoleBinding":        &rbacv1.RoleBinding{},
	}
	obj, ok := types[head.APIVersion+"/"+head.Kind]
	if !ok {
		return nil, "", fmt.Errorf("%s %s: no check knows this kind; add it to decodeManifest", head.APIVersion, head.Kind)
	}
	if err := yaml.UnmarshalStrict([]byte(content), obj); err != nil {
		return nil, "", err
	}
	if head.Metadata.Name == "" {
		return nil, "", fmt.Errorf("%s without a name", head.Kind)
	}
	if head.Metadata.Namespace != "" {
		return nil, "", fmt.Errorf("%s/%s sets its namespace: leave it to the release", head.Kind, head.Metadata.Name)
	}
	return obj, head.Kind + "/" + head.Metadata.Name, nil
}

// chartValues are the values the chart renders with: its defaults under vals.
func chartValues(t *testing.T, vals map[string]any) chartutil.Values {
	t.Helper()
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	v, err := chartutil.CoalesceValues(ch, vals)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// valuesFile reads a values file of the chart; "" is no file.
func valuesFile(t *testing.T, file string) map[string]any {
	t.Helper()
	if file == "" {
		return map[string]any{}
	}
	v, err := chartutil.ReadValuesFile(filepath.Join(chartDir, file))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// durationEnv reads a duration-valued variable from a container's env.
func durationEnv(t *testing.T, env []corev1.EnvVar, name string) time.Duration {
	t.Helper()
	for _, e := range env {
		if e.Name == name {
			d, err := time.ParseDuration(e.Value)
			if err != nil {
				t.Fatalf("%s=%q: %v", name, e.Value, err)
			}
			return d
		}
	}
	t.Fatalf("%s is not set", name)
	return 0
}

func envNames(env []corev1.EnvVar) []string {
	var out []string
	for _, e := range env {
		out = append(out, e.Name)
	}
	return out
}

func findEnv(env []corev1.EnvVar, name string) (corev1.EnvVar, bool) {
	i := slices.IndexFunc(env, func(e corev1.EnvVar) bool { return e.Name == name })
	if i < 0 {
		return corev1.EnvVar{}, false
	}
	return env[i], true
}

// testLog sends the standard logger's lines to the test's log.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
