package deployments

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/release"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// finalStreamEnd is how long the server may take, after its shutdown
// timeout, to end the streams still open (cmd/auxilia/serve.go).
const finalStreamEnd = 5 * time.Second

// secretEnv are the variables that must come from a Secret, never a literal.
var secretEnv = []string{"DATABASE_URL", "AUXILIA_SECRET_KEYS", "AUXILIA_BOOTSTRAP_TOKEN"}

// checkRelease asserts what must hold of every release the chart renders.
func checkRelease(t *testing.T, r rendered, v chartutil.Values) {
	dep := only[*appsv1.Deployment](t, r, false)
	pod := dep.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("Deployment has %d containers; want the server alone", len(pod.Containers))
	}
	server := pod.Containers[0]

	t.Run("labels", func(t *testing.T) {
		for key, obj := range r.objects {
			labels := obj.(metav1.Object).GetLabels()
			for _, l := range []string{"app.kubernetes.io/name", "app.kubernetes.io/instance"} {
				if labels[l] == "" {
					t.Errorf("%s has no %s label", key, l)
				}
			}
		}
		if !subset(dep.Spec.Selector.MatchLabels, dep.Spec.Template.Labels) {
			t.Errorf("the Deployment's selector %v does not select its pods %v", dep.Spec.Selector.MatchLabels, dep.Spec.Template.Labels)
		}
		// Kubernetes sandboxes' NetworkPolicy lets the server in by it
		// (pkg/provider/agentsandbox/network.go).
		if got := dep.Spec.Template.Labels["auxilia/server"]; got != "true" {
			t.Errorf("the server's pods are labelled auxilia/server=%q; want \"true\", which sandboxes' network policy lets in", got)
		}
	})

	t.Run("server container", func(t *testing.T) {
		if !slices.Equal(server.Args, []string{"serve"}) || len(server.Command) != 0 {
			t.Errorf("runs %v %v; want the image's entrypoint with [serve]", server.Command, server.Args)
		}
		port := containerPort(t, server, "http")
		if listen := envValue(t, server.Env, "AUXILIA_LISTEN"); listen != fmt.Sprintf("0.0.0.0:%d", port) {
			t.Errorf("AUXILIA_LISTEN=%q; the container port http is %d", listen, port)
		}
		// Metrics need no token: apart from the API, on a port the Service
		// (see below) does not expose.
		metrics := containerPort(t, server, "metrics")
		if listen := envValue(t, server.Env, "AUXILIA_METRICS_LISTEN"); listen != fmt.Sprintf("0.0.0.0:%d", metrics) {
			t.Errorf("AUXILIA_METRICS_LISTEN=%q; the container port metrics is %d", listen, metrics)
		}
		checkProbe(t, "readiness", server.ReadinessProbe, "/readyz")
		checkProbe(t, "liveness", server.LivenessProbe, "/healthz")
		checkProbe(t, "startup", server.StartupProbe, "/healthz")
		if a := dep.Spec.Template.Annotations["checksum/secret"]; a == "" {
			t.Error("no checksum/secret annotation: a new key would not roll the pods")
		}
		if ru := dep.Spec.Strategy.RollingUpdate; ru == nil || ru.MaxUnavailable == nil || ru.MaxUnavailable.IntValue() != 0 {
			t.Errorf("rolling update %+v may take a replica away before its successor is ready", ru)
		}
	})

	t.Run("pod security", func(t *testing.T) {
		checkPodSecurity(t, pod, boolValue(t, v, "kubernetesSandboxes.enabled"))
	})
	t.Run("kubernetes sandboxes", func(t *testing.T) { checkKubernetesSandboxes(t, r, v, pod) })

	t.Run("graceful termination", func(t *testing.T) {
		shutdown := durationEnv(t, server.Env, "AUXILIA_SHUTDOWN_TIMEOUT")
		if want := time.Duration(intValue(t, v, "shutdownTimeoutSeconds")) * time.Second; shutdown != want {
			t.Errorf("AUXILIA_SHUTDOWN_TIMEOUT=%s; shutdownTimeoutSeconds says %s", shutdown, want)
		}
		var preStop time.Duration
		if h := server.Lifecycle; h != nil && h.PreStop != nil && h.PreStop.Exec != nil {
			cmd := h.PreStop.Exec.Command
			n, err := strconv.Atoi(cmd[len(cmd)-1])
			if cmd[0] != "sleep" || err != nil {
				t.Fatalf("preStop %v; want a sleep", cmd)
			}
			preStop = time.Duration(n) * time.Second
		}
		if pod.TerminationGracePeriodSeconds == nil {
			t.Fatal("no terminationGracePeriodSeconds: Kubernetes' 30 s default is the server's whole shutdown timeout")
		}
		grace := time.Duration(*pod.TerminationGracePeriodSeconds) * time.Second
		// 30 s is the server's default shutdown timeout.
		if need := preStop + shutdown + finalStreamEnd; grace <= 30*time.Second || grace <= need {
			t.Errorf("terminationGracePeriodSeconds %s; want more than 30 s and than preStop %s + shutdown %s + %s", grace, preStop, shutdown, finalStreamEnd)
		}
	})

	t.Run("replicas", func(t *testing.T) {
		hpa, hasHPA := r.get("HorizontalPodAutoscaler", dep.Name)
		if boolValue(t, v, "autoscaling.enabled") {
			if dep.Spec.Replicas != nil {
				t.Error("the Deployment sets replicas although the HPA owns them")
			}
			if !hasHPA {
				t.Fatal("autoscaling.enabled but no HorizontalPodAutoscaler")
			}
			h := hpa.(*autoscalingv2.HorizontalPodAutoscaler)
			ref := h.Spec.ScaleTargetRef
			if ref.Kind != "Deployment" || ref.Name != dep.Name || ref.APIVersion != "apps/v1" {
				t.Errorf("the HPA scales %+v; want Deployment %s", ref, dep.Name)
			}
			if h.Spec.MinReplicas == nil || int(*h.Spec.MinReplicas) != intValue(t, v, "autoscaling.minReplicas") ||
				int(h.Spec.MaxReplicas) != intValue(t, v, "autoscaling.maxReplicas") {
				t.Errorf("the HPA's bounds %v..%d differ from the values", h.Spec.MinReplicas, h.Spec.MaxReplicas)
			}
			if len(h.Spec.Metrics) == 0 {
				t.Error("the HPA has no metric")
			}
			return
		}
		if hasHPA {
			t.Error("an HPA although autoscaling is off")
		}
		if dep.Spec.Replicas == nil || int(*dep.Spec.Replicas) != intValue(t, v, "replicaCount") {
			t.Errorf("replicas %v; want replicaCount %d", dep.Spec.Replicas, intValue(t, v, "replicaCount"))
		}
	})

	t.Run("secrets", func(t *testing.T) {
		checkSecretEnv(t, r, v, server.Env, false)
		_, hasToken := findEnv(server.Env, "AUXILIA_BOOTSTRAP_TOKEN")
		if want := stringValue(t, v, "bootstrapToken.value") != "" || stringValue(t, v, "bootstrapToken.existingSecret") != ""; hasToken != want {
			t.Errorf("AUXILIA_BOOTSTRAP_TOKEN set: %v; want %v", hasToken, want)
		}
		for _, name := range []string{"DATABASE_URL", "AUXILIA_SECRET_KEYS"} {
			if _, ok := findEnv(server.Env, name); !ok {
				t.Errorf("the server gets no %s", name)
			}
		}
		// Inline secret values appear in Secrets only.
		for _, path := range []string{"database.url", "secretKeys.value", "bootstrapToken.value"} {
			secret := stringValue(t, v, path)
			if secret == "" {
				continue
			}
			for key, obj := range r.objects {
				if strings.HasPrefix(key, "Secret/") {
					continue
				}
				if js, _ := json.Marshal(obj); strings.Contains(string(js), secret) {
					t.Errorf("%s shows %s in plain", key, path)
				}
			}
		}
	})

	t.Run("migration hook", func(t *testing.T) {
		if !boolValue(t, v, "migration.enabled") {
			if len(r.hooks) != 0 {
				t.Errorf("hooks although migration is off: %v", r.hooks)
			}
			return
		}
		job := only[*batchv1.Job](t, r, true)
		hook := hookOf(t, r, "Job", job.Name)
		for _, e := range []release.HookEvent{release.HookPreInstall, release.HookPreUpgrade} {
			if !slices.Contains(hook.Events, e) {
				t.Errorf("the migration Job is not a %s hook (events %v)", e, hook.Events)
			}
		}
		if !slices.Contains(hook.DeletePolicies, release.HookBeforeHookCreation) {
			t.Error("the migration Job is not replaced on the next upgrade (before-hook-creation)")
		}
		jpod := job.Spec.Template.Spec
		if len(jpod.Containers) != 1 {
			t.Fatalf("the Job has %d containers", len(jpod.Containers))
		}
		c := jpod.Containers[0]
		if !slices.Equal(c.Args, []string{"migrate"}) || len(c.Command) != 0 {
			t.Errorf("the Job runs %v %v; want [migrate]", c.Command, c.Args)
		}
		if c.Image != server.Image {
			t.Errorf("the Job runs %s, the servers %s", c.Image, server.Image)
		}
		if jpod.RestartPolicy != corev1.RestartPolicyNever {
			t.Errorf("restartPolicy %s; want Never (the Job's backoffLimit retries)", jpod.RestartPolicy)
		}
		checkPodSecurity(t, jpod, false)
		checkSecretEnv(t, r, v, c.Env, true)
		// Hooks run before the release's own resources exist.
		if sa := jpod.ServiceAccountName; sa != "" {
			if _, ok := r.get("ServiceAccount", sa); ok && !r.isHook["ServiceAccount/"+sa] {
				t.Errorf("the Job uses ServiceAccount %s, which the release makes only after its pre-install hooks", sa)
			}
		}
		for _, ref := range envSecretRefs(c) {
			if _, ok := r.get("Secret", ref); ok && !r.isHook["Secret/"+ref] {
				t.Errorf("the Job reads Secret %s, which the release makes only after its pre-install hooks", ref)
			} else if ok && hookOf(t, r, "Secret", ref).Weight >= hook.Weight {
				t.Errorf("the hook Secret %s is not made before the Job (weights)", ref)
			}
		}
	})

	t.Run("service", func(t *testing.T) {
		svc := only[*corev1.Service](t, r, false)
		if !reflect.DeepEqual(svc.Spec.Selector, dep.Spec.Selector.MatchLabels) {
			t.Errorf("the Service selects %v, the Deployment's pods are %v", svc.Spec.Selector, dep.Spec.Selector.MatchLabels)
		}
		if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort != intstr.FromString("http") {
			t.Errorf("Service ports %+v; want one to the container port http", svc.Spec.Ports)
		}
	})

	t.Run("service account", func(t *testing.T) {
		if !boolValue(t, v, "serviceAccount.create") {
			if _, ok := r.get("ServiceAccount", pod.ServiceAccountName); ok {
				t.Error("a ServiceAccount although serviceAccount.create is false")
			}
			return
		}
		sa, ok := r.get("ServiceAccount", pod.ServiceAccountName)
		if !ok {
			t.Fatalf("the pods use ServiceAccount %q, which the release does not make", pod.ServiceAccountName)
		}
		if a := sa.(*corev1.ServiceAccount).AutomountServiceAccountToken; a == nil || *a {
			t.Error("the ServiceAccount mounts its token; the server calls no Kubernetes API")
		}
	})

	t.Run("disruption budget", func(t *testing.T) {
		if !boolValue(t, v, "podDisruptionBudget.enabled") {
			return
		}
		pdb := only[*policyv1.PodDisruptionBudget](t, r, false)
		if !reflect.DeepEqual(pdb.Spec.Selector.MatchLabels, dep.Spec.Selector.MatchLabels) {
			t.Errorf("the PDB selects %v", pdb.Spec.Selector.MatchLabels)
		}
		if (pdb.Spec.MinAvailable == nil) == (pdb.Spec.MaxUnavailable == nil) {
			t.Errorf("the PDB must set one of minAvailable and maxUnavailable: %+v", pdb.Spec)
		}
	})

	t.Run("ingress", func(t *testing.T) {
		if !boolValue(t, v, "ingress.enabled") {
			if len(objectsOf[*networkingv1.Ingress](r)) != 0 {
				t.Error("an Ingress although ingress.enabled is false")
			}
			return
		}
		ing := only[*networkingv1.Ingress](t, r, false)
		a := ing.Annotations
		if a["nginx.ingress.kubernetes.io/proxy-buffering"] != "off" {
			t.Error("the Ingress buffers responses: server-sent events would stall")
		}
		if n, _ := strconv.Atoi(a["nginx.ingress.kubernetes.io/proxy-read-timeout"]); n < 3600 {
			t.Errorf("proxy-read-timeout %q: a long command's answer would be cut", a["nginx.ingress.kubernetes.io/proxy-read-timeout"])
		}
		svc := only[*corev1.Service](t, r, false)
		for _, rule := range ing.Spec.Rules {
			for _, p := range rule.HTTP.Paths {
				if b := p.Backend.Service; b == nil || b.Name != svc.Name || b.Port.Name != "http" {
					t.Errorf("the Ingress path %s goes to %+v; want Service %s port http", p.Path, b, svc.Name)
				}
			}
		}
	})

	t.Run("notes", func(t *testing.T) {
		if !strings.Contains(r.notes, dep.Name) || !strings.Contains(r.notes, "local (bubblewrap) provider is off") {
			t.Errorf("NOTES.txt does not render as expected:\n%s", r.notes)
		}
	})
}

// checkPodSecurity asserts a pod runs as a non-root user without privileges
// and without the local provider, its ServiceAccount's token mounted only
// when it calls the Kubernetes API.
func checkPodSecurity(t *testing.T, pod corev1.PodSpec, callsKubernetes bool) {
	t.Helper()
	psc := pod.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
		t.Error("the pod does not require runAsNonRoot")
	}
	if psc == nil || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
		t.Error("the pod sets no non-root runAsUser")
	}
	if a := pod.AutomountServiceAccountToken; a == nil || *a != callsKubernetes {
		t.Errorf("the pod mounts a ServiceAccount token: %v; want %v", a != nil && *a, callsKubernetes)
	}
	for _, c := range pod.Containers {
		sc := c.SecurityContext
		switch {
		case sc == nil:
			t.Errorf("container %s has no securityContext", c.Name)
			continue
		case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
			t.Errorf("container %s allows privilege escalation", c.Name)
		case sc.Privileged != nil && *sc.Privileged:
			t.Errorf("container %s is privileged", c.Name)
		case sc.RunAsUser != nil && *sc.RunAsUser == 0:
			t.Errorf("container %s runs as root", c.Name)
		case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
			t.Errorf("container %s has a writable root file system", c.Name)
		case sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL"):
			t.Errorf("container %s keeps its capabilities", c.Name)
		}
		seen := map[string]bool{}
		for _, n := range envNames(c.Env) {
			if seen[n] {
				t.Errorf("container %s sets %s twice", c.Name, n)
			}
			seen[n] = true
		}
		if got := envValue(t, c.Env, "AUXILIA_LOCAL_PROVIDER"); got != "off" {
			t.Errorf("container %s: AUXILIA_LOCAL_PROVIDER=%q; want off", c.Name, got)
		}
	}
}

// checkSecretEnv asserts where each secret variable comes from: a key of
// the Secret the values name, which the release makes (with that key) or
// which is named as existing. Hooks may read only hook Secrets.
func checkSecretEnv(t *testing.T, r rendered, v chartutil.Values, env []corev1.EnvVar, hook bool) {
	t.Helper()
	settings := map[string]string{"DATABASE_URL": "database", "AUXILIA_SECRET_KEYS": "secretKeys", "AUXILIA_BOOTSTRAP_TOKEN": "bootstrapToken"}
	for _, name := range secretEnv {
		e, ok := findEnv(env, name)
		if !ok {
			continue
		}
		if e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
			t.Errorf("%s is not read from a Secret", name)
			continue
		}
		ref := e.ValueFrom.SecretKeyRef
		setting := settings[name]
		if existing := stringValue(t, v, setting+".existingSecret"); existing != "" {
			if ref.Name != existing || ref.Key != stringValue(t, v, setting+".existingSecretKey") {
				t.Errorf("%s comes from %s/%s; want the existing Secret %s/%s", name, ref.Name, ref.Key, existing, stringValue(t, v, setting+".existingSecretKey"))
			}
			continue
		}
		obj, made := r.get("Secret", ref.Name)
		if !made {
			t.Errorf("%s comes from Secret %s, which neither the release makes nor the values name", name, ref.Name)
			continue
		}
		if r.isHook["Secret/"+ref.Name] != hook {
			t.Errorf("%s comes from Secret %s (hook: %v) for a container that is a hook: %v", name, ref.Name, r.isHook["Secret/"+ref.Name], hook)
		}
		value, has := obj.(*corev1.Secret).Data[ref.Key]
		if !has {
			t.Errorf("Secret %s has no key %s for %s", ref.Name, ref.Key, name)
		} else if want := inlineValue(t, v, setting); string(value) != want {
			t.Errorf("Secret %s/%s holds %q; the values give %q", ref.Name, ref.Key, value, want)
		}
	}
}

func inlineValue(t *testing.T, v chartutil.Values, setting string) string {
	if setting == "database" {
		return stringValue(t, v, "database.url")
	}
	return stringValue(t, v, setting+".value")
}

func checkProbe(t *testing.T, which string, p *corev1.Probe, path string) {
	t.Helper()
	if p == nil || p.HTTPGet == nil {
		t.Errorf("no %s probe over HTTP", which)
		return
	}
	if p.HTTPGet.Path != path || p.HTTPGet.Port != intstr.FromString("http") {
		t.Errorf("%s probe asks %s on port %s; want %s on http", which, p.HTTPGet.Path, p.HTTPGet.Port.String(), path)
	}
}

func containerPort(t *testing.T, c corev1.Container, name string) int32 {
	t.Helper()
	for _, p := range c.Ports {
		if p.Name == name {
			return p.ContainerPort
		}
	}
	t.Fatalf("container %s has no port %s", c.Name, name)
	return 0
}

func envValue(t *testing.T, env []corev1.EnvVar, name string) string {
	t.Helper()
	e, ok := findEnv(env, name)
	if !ok {
		t.Errorf("%s is not set", name)
	}
	return e.Value
}

func envSecretRefs(c corev1.Container) []string {
	var out []string
	for _, e := range c.Env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			out = append(out, e.ValueFrom.SecretKeyRef.Name)
		}
	}
	for _, e := range c.EnvFrom {
		if e.SecretRef != nil {
			out = append(out, e.SecretRef.Name)
		}
	}
	return out
}

func hookOf(t *testing.T, r rendered, kind, name string) *release.Hook {
	t.Helper()
	for _, h := range r.hooks {
		if h.Kind == kind && h.Name == name {
			return h
		}
	}
	t.Fatalf("%s/%s is not a hook", kind, name)
	return nil
}

// only returns the one object of type T, a hook or not.
func only[T any](t *testing.T, r rendered, hook bool) T {
	t.Helper()
	var found []T
	for key, obj := range r.objects {
		if o, ok := obj.(T); ok && r.isHook[key] == hook {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		var zero T
		t.Fatalf("%d objects of type %T (hook: %v); want one", len(found), zero, hook)
	}
	return found[0]
}

func objectsOf[T any](r rendered) []T {
	var out []T
	for _, obj := range r.objects {
		if o, ok := obj.(T); ok {
			out = append(out, o)
		}
	}
	return out
}

func subset(sub, of map[string]string) bool {
	for k, v := range sub {
		if of[k] != v {
			return false
		}
	}
	return len(sub) > 0
}

func value(t *testing.T, v chartutil.Values, path string) any {
	t.Helper()
	x, err := v.PathValue(path)
	if err != nil {
		t.Fatalf("values: %s: %v", path, err)
	}
	return x
}

func stringValue(t *testing.T, v chartutil.Values, path string) string {
	t.Helper()
	s, _ := value(t, v, path).(string)
	return s
}

func boolValue(t *testing.T, v chartutil.Values, path string) bool {
	t.Helper()
	b, _ := value(t, v, path).(bool)
	return b
}

func intValue(t *testing.T, v chartutil.Values, path string) int {
	t.Helper()
	switch n := value(t, v, path).(type) {
	case float64:
		return int(n)
	case int64:
		return int(n)
	case int:
		return n
	case json.Number:
		i, _ := n.Int64()
		return int(i)
	}
	t.Fatalf("values: %s is not a number", path)
	return 0
}

// checkKubernetesSandboxes asserts the pods' ServiceAccount is granted
// what the Kubernetes provider calls, in the release's namespace, only
// when kubernetesSandboxes.enabled, and nothing that writes pods.
func checkKubernetesSandboxes(t *testing.T, r rendered, v chartutil.Values, pod corev1.PodSpec) {
	var bindings []*rbacv1.RoleBinding
	for key, o := range r.objects {
		if b, ok := o.(*rbacv1.RoleBinding); ok && strings.HasPrefix(key, "RoleBinding/") {
			bindings = append(bindings, b)
		}
	}
	if !boolValue(t, v, "kubernetesSandboxes.enabled") {
		if len(bindings) > 0 {
			t.Error("a RoleBinding although kubernetesSandboxes.enabled is false")
		}
		return
	}
	if len(bindings) != 1 {
		t.Fatalf("%d RoleBindings; want one, in the release's namespace", len(bindings))
	}
	b := bindings[0]
	if len(b.Subjects) != 1 || b.Subjects[0].Kind != "ServiceAccount" || b.Subjects[0].Name != pod.ServiceAccountName {
		t.Errorf("the RoleBinding binds %+v; want the pods' ServiceAccount %s", b.Subjects, pod.ServiceAccountName)
	}
	o, ok := r.get(b.RoleRef.Kind, b.RoleRef.Name)
	if !ok {
		t.Fatalf("the RoleBinding refers to %s %s, which the release does not make", b.RoleRef.Kind, b.RoleRef.Name)
	}
	granted := map[string]bool{}
	for _, rule := range o.(*rbacv1.ClusterRole).Rules {
		for _, res := range rule.Resources {
			for _, verb := range rule.Verbs {
				granted[res+":"+verb] = true
			}
		}
	}
	for _, need := range []string{"sandboxes:create", "sandboxes:get", "sandboxes:list", "sandboxes:patch", "sandboxes:delete",
		"sandboxtemplates:get", "sandboxtemplates:create", "sandboxtemplates:update", "sandboxwarmpools:get", "sandboxwarmpools:create",
		"sandboxwarmpools:patch", "sandboxwarmpools:delete", "sandboxclaims:get", "sandboxclaims:create", "sandboxclaims:delete",
		"pods:get", "pods/portforward:create"} {
		if !granted[need] {
			t.Errorf("the provider needs %s; the role does not grant it", need)
		}
	}
	for _, never := range []string{"pods:create", "pods:delete", "pods:patch", "pods/exec:create", "secrets:get", "*:*"} {
		if granted[never] {
			t.Errorf("the role grants %s, which the provider never calls", never)
		}
	}
}
