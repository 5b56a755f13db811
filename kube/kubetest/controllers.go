package kubetest

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/agent-sandbox/controllers"
	extensionsv1beta1 "sigs.k8s.io/agent-sandbox/extensions/api/v1beta1"
	extensionscontrollers "sigs.k8s.io/agent-sandbox/extensions/controllers"
	"sigs.k8s.io/agent-sandbox/extensions/controllers/queue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// startSandboxControllers runs agent-sandbox's four reconcilers the way its
// controller binary wires them with --extensions, minus leader election,
// metrics and tracing. It returns once the manager's caches are synced.
func startSandboxControllers(ctx context.Context, cfg *rest.Config) error {
	ctrl.SetLogger(controllerLogger())
	scheme := controllers.Scheme
	utilruntime.Must(extensionsv1beta1.AddToScheme(scheme))

	mgr, err := ctrl.NewManager(rest.CopyConfig(cfg), ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache: cache.Options{
			DefaultTransform: cache.TransformStripManagedFields(),
			ByObject: map[client.Object]cache.ByObject{
				&corev1.Pod{}: {Transform: controllers.PodCacheTransform},
			},
		},
	})
	if err != nil {
		return fmt.Errorf("controller manager: %w", err)
	}
	tracer := noTracing{}
	if err := (&controllers.SandboxReconciler{
		Client:        mgr.GetClient(),
		Scheme:        mgr.GetScheme(),
		Recorder:      mgr.GetEventRecorder("sandbox-controller"),
		Tracer:        tracer,
		ClusterDomain: "cluster.local",
	}).SetupWithManager(mgr, 8); err != nil {
		return fmt.Errorf("sandbox controller: %w", err)
	}
	if err := (&extensionscontrollers.SandboxClaimReconciler{
		Client:           mgr.GetClient(),
		APIReader:        mgr.GetAPIReader(),
		Scheme:           mgr.GetScheme(),
		WarmSandboxQueue: queue.NewSimpleSandboxQueue(),
		Recorder:         mgr.GetEventRecorder("sandboxclaim-controller"),
		Tracer:           tracer,
	}).SetupWithManager(mgr, 8); err != nil {
		return fmt.Errorf("sandbox claim controller: %w", err)
	}
	if err := (&extensionscontrollers.SandboxTemplateReconciler{
		Client:   mgr.GetClient(),
		Scheme:   mgr.GetScheme(),
		Recorder: mgr.GetEventRecorder("sandboxtemplate-controller"),
		Tracer:   tracer,
	}).SetupWithManager(mgr, 1); err != nil {
		return fmt.Errorf("sandbox template controller: %w", err)
	}
	if err := (&extensionscontrollers.SandboxWarmPoolReconciler{
		Client:                       mgr.GetClient(),
		Scheme:                       mgr.GetScheme(),
		MaxBatchSize:                 300,
		EnableWarmPoolEviction:       true,
		Recorder:                     mgr.GetEventRecorder("sandboxwarmpool-controller"),
		ReadinessGracePeriod:         extensionscontrollers.DefaultWarmPoolReadinessGracePeriod,
		UnschedulableRecheckInterval: extensionscontrollers.DefaultUnschedulableRecheckInterval,
	}).SetupWithManager(mgr, 1); err != nil {
		return fmt.Errorf("sandbox warm pool controller: %w", err)
	}

	go func() {
		if err := mgr.Start(ctx); err != nil {
			controllerLogger().Error(err, "controller manager stopped")
		}
	}()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		return fmt.Errorf("controller caches did not sync")
	}
	return nil
}

// noTracing is the controllers' tracing hook with tracing off.
type noTracing struct{}

func (noTracing) StartSpan(ctx context.Context, _ metav1.Object, _ string, _ map[string]string) (context.Context, func()) {
	return ctx, func() {}
}
func (noTracing) GetTraceContext(context.Context) string              { return "" }
func (noTracing) AddEvent(context.Context, string, map[string]string) {}
func (noTracing) IsRecording(context.Context) bool                    { return false }
