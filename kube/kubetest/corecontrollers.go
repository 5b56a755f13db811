package kubetest

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/controller-manager/pkg/informerfactory"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller/garbagecollector"
	namespacecontroller "k8s.io/kubernetes/pkg/controller/namespace"
	serviceaccountcontroller "k8s.io/kubernetes/pkg/controller/serviceaccount"
	"k8s.io/kubernetes/pkg/controller/volume/pvcprotection"
)

// startCoreControllers runs the kube-controller-manager loops the sandbox
// lifecycle leans on: the garbage collector (a deleted Sandbox takes its Pod,
// Service and PVCs with it through owner references), the namespace
// controller (a deleted namespace empties and goes away), the service
// account controller (each namespace gets the "default" ServiceAccount that
// Pod admission requires) and PVC protection (a deleted claim goes once no
// Pod uses it).
func startCoreControllers(ctx context.Context, cfg *rest.Config) error {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	metadataClient, err := metadata.NewForConfig(cfg)
	if err != nil {
		return err
	}
	sharedInformers := informers.NewSharedInformerFactory(client, 0)
	metadataInformers := metadatainformer.NewSharedInformerFactory(metadataClient, 0)
	restMapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(client.Discovery()))
	restMapper.Reset()

	started := make(chan struct{})
	close(started)
	gc, err := garbagecollector.NewGarbageCollector(ctx, client, metadataClient, restMapper,
		garbagecollector.DefaultIgnoredResources(),
		informerfactory.NewInformerFactory(sharedInformers, metadataInformers), started)
	if err != nil {
		return fmt.Errorf("garbage collector: %w", err)
	}
	namespaces := namespacecontroller.NewNamespaceController(ctx, client, metadataClient,
		client.Discovery().ServerPreferredNamespacedResources,
		sharedInformers.Core().V1().Namespaces(), 10*time.Minute, corev1.FinalizerKubernetes)

	serviceAccounts, err := serviceaccountcontroller.NewServiceAccountsController(klog.FromContext(ctx),
		sharedInformers.Core().V1().ServiceAccounts(), sharedInformers.Core().V1().Namespaces(),
		client, serviceaccountcontroller.DefaultServiceAccountsControllerOptions())
	if err != nil {
		return fmt.Errorf("service account controller: %w", err)
	}
	claimProtection, err := pvcprotection.NewPVCProtectionController(klog.FromContext(ctx),
		sharedInformers.Core().V1().PersistentVolumeClaims(), sharedInformers.Core().V1().Pods(), client)
	if err != nil {
		return fmt.Errorf("pvc protection controller: %w", err)
	}

	sharedInformers.Start(ctx.Done())
	metadataInformers.Start(ctx.Done())

	// Discovery is refreshed so CRDs installed later are collected too.
	const syncPeriod = time.Second
	go wait.Until(restMapper.Reset, syncPeriod, ctx.Done())
	go gc.Run(ctx, 4, syncPeriod)
	go gc.Sync(ctx, client.Discovery(), syncPeriod)
	go namespaces.Run(ctx, 4)
	go serviceAccounts.Run(ctx, 2)
	go claimProtection.Run(ctx, 2)
	return nil
}
