package kubetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"
)

// podFailure is what the next Pods of a namespace go through instead of
// starting: either the scheduler finds no node, or the container cannot
// start and waits with reason.
type podFailure struct {
	reason  string
	message string
}

const reasonUnschedulable = corev1.PodReasonUnschedulable

// kubelet plays the kubelet (and, for the one node, the scheduler's bind)
// for every Pod in the cluster.
type kubelet struct {
	client   kubernetes.Interface
	pods     corelisters.PodLister
	queue    workqueue.TypedRateLimitingInterface[types.NamespacedName]
	sandboxd string
	dataDir  string

	mu       sync.Mutex
	running  map[types.UID]*podRun
	ipByPod  map[types.NamespacedName]string
	exited   map[types.UID]bool
	failures map[string]podFailure
	// lingering are the namespaces whose deleted Pods keep running
	// (LingerDeletedPods).
	lingering map[string]bool
	nextIP    int
	// addresses are this process's own Pod addresses.
	addresses *addressBlock
}

// podRun is a Pod whose sandboxd runs.
type podRun struct {
	key     types.NamespacedName
	ip      string
	process *podProcess
	scratch string
}

func startKubelet(ctx context.Context, client kubernetes.Interface, sandboxd, dataDir string) (*kubelet, error) {
	addresses, err := claimAddressBlock()
	if err != nil {
		return nil, err
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	podInformer := factory.Core().V1().Pods()
	k := &kubelet{
		client:    client,
		pods:      podInformer.Lister(),
		queue:     workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[types.NamespacedName]()),
		sandboxd:  sandboxd,
		dataDir:   dataDir,
		running:   map[types.UID]*podRun{},
		ipByPod:   map[types.NamespacedName]string{},
		lingering: map[string]bool{},
		exited:    map[types.UID]bool{},
		failures:  map[string]podFailure{},
		addresses: addresses,
	}
	enqueue := func(obj any) {
		if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tomb.Obj
		}
		if pod, ok := obj.(*corev1.Pod); ok {
			k.queue.Add(types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name})
		}
	}
	if _, err := podInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
		DeleteFunc: enqueue,
	}); err != nil {
		return nil, err
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), podInformer.Informer().HasSynced) {
		return nil, fmt.Errorf("pod informer did not sync")
	}
	for range 4 {
		go k.work(ctx)
	}
	go func() {
		<-ctx.Done()
		k.queue.ShutDown()
	}()
	return k, nil
}

func (k *kubelet) work(ctx context.Context) {
	for {
		key, shutdown := k.queue.Get()
		if shutdown {
			return
		}
		if err := k.sync(ctx, key); err != nil && ctx.Err() == nil {
			k.queue.AddRateLimited(key)
		} else {
			k.queue.Forget(key)
		}
		k.queue.Done(key)
	}
}

// sync moves one Pod one step along the path a kubelet would take it.
func (k *kubelet) sync(ctx context.Context, key types.NamespacedName) error {
	pod, err := k.pods.Pods(key.Namespace).Get(key.Name)
	if apierrors.IsNotFound(err) {
		k.stopByName(key)
		return nil
	}
	if err != nil {
		return err
	}
	switch {
	case pod.DeletionTimestamp != nil && k.lingers(pod.Namespace):
		return nil
	case pod.DeletionTimestamp != nil:
		return k.finalize(ctx, pod)
	case pod.Spec.NodeName == "":
		return k.schedule(ctx, pod)
	case pod.Spec.NodeName != nodeName || pod.Status.Phase != corev1.PodPending:
		return nil
	case k.isRunning(pod.UID) || k.hasExited(pod.UID):
		return nil
	}
	if failure, ok := k.failureFor(pod.Namespace); ok && failure.reason != reasonUnschedulable {
		if isWaiting(pod, failure) {
			return nil
		}
		return k.updateStatus(ctx, pod, func(p *corev1.Pod) { waitingStatus(p, failure) })
	}
	return k.start(ctx, pod)
}

// schedule binds the Pod to the node, as the scheduler would, or marks it
// unschedulable while FailPods says so.
func (k *kubelet) schedule(ctx context.Context, pod *corev1.Pod) error {
	if failure, ok := k.failureFor(pod.Namespace); ok && failure.reason == reasonUnschedulable {
		if isUnschedulable(pod, failure) {
			return nil
		}
		return k.updateStatus(ctx, pod, func(p *corev1.Pod) {
			setPodCondition(p, corev1.PodCondition{
				Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
				Reason: corev1.PodReasonUnschedulable, Message: failure.message,
			})
		})
	}
	binding := &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		Target:     corev1.ObjectReference{Kind: "Node", Name: nodeName},
	}
	err := k.client.CoreV1().Pods(pod.Namespace).Bind(ctx, binding, metav1.CreateOptions{})
	if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// start runs the Pod's sandboxd and reports the Pod Running and Ready.
func (k *kubelet) start(ctx context.Context, pod *corev1.Pod) error {
	if len(pod.Spec.Containers) == 0 {
		return nil
	}
	container := pod.Spec.Containers[0]
	scratch := filepath.Join(k.dataDir, "pods", string(pod.UID))
	binds, err := k.volumeBinds(ctx, pod, container, scratch)
	if err != nil {
		return err
	}
	ip := k.allocateIP(pod)
	process, err := startPodProcess(k.sandboxd, scratch, ip, sandboxRootDir(container), binds, containerEnv(container))
	if err != nil {
		// Like a container that cannot run, the Pod stays as it is; this
		// node does not retry it.
		k.mu.Lock()
		k.exited[pod.UID] = true
		k.mu.Unlock()
		message := err.Error()
		return k.updateStatus(ctx, pod, func(p *corev1.Pod) {
			waitingStatus(p, podFailure{reason: "RunContainerError", message: message})
		})
	}
	run := &podRun{key: types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}, ip: ip, process: process, scratch: scratch}
	k.mu.Lock()
	k.running[pod.UID] = run
	k.mu.Unlock()
	return k.updateStatus(ctx, pod, func(p *corev1.Pod) { runningStatus(p, ip) })
}

// finalize ends a deleted Pod's processes and removes the Pod object, the
// kubelet's last word on a Pod.
func (k *kubelet) finalize(ctx context.Context, pod *corev1.Pod) error {
	k.stop(pod.UID)
	err := k.client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
		GracePeriodSeconds: new(int64),
		Preconditions:      &metav1.Preconditions{UID: &pod.UID},
	})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return err
}

// exit ends a Pod's containers with exit code 1 and reports what the
// kubelet reports for its restart policy: a Never Pod fails; the others wait
// in CrashLoopBackOff (this node does not restart them).
func (k *kubelet) exit(ctx context.Context, key types.NamespacedName) error {
	pod, err := k.client.CoreV1().Pods(key.Namespace).Get(ctx, key.Name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	k.mu.Lock()
	k.exited[pod.UID] = true
	k.mu.Unlock()
	k.stop(pod.UID)
	return k.updateStatus(ctx, pod, exitedStatus)
}

func (k *kubelet) updateStatus(ctx context.Context, pod *corev1.Pod, mutate func(*corev1.Pod)) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current, err := k.client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if current.UID != pod.UID {
			return nil
		}
		mutate(current)
		_, err = k.client.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, current, metav1.UpdateOptions{})
		return err
	})
}

// volumeBinds maps the container's volume mounts to host folders: a claim's
// folder belongs to the claim object, so it outlives the Pod and a claim made
// anew under the same name starts empty; any other volume is the Pod's own
// and goes with it. A claim that does not exist yet keeps the Pod waiting.
func (k *kubelet) volumeBinds(ctx context.Context, pod *corev1.Pod, container corev1.Container, scratch string) ([]volumeBind, error) {
	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Spec.Volumes {
		volumes[v.Name] = v
	}
	var binds []volumeBind
	for _, mount := range container.VolumeMounts {
		v, ok := volumes[mount.Name]
		if !ok {
			return nil, fmt.Errorf("pod %s/%s mounts unknown volume %q", pod.Namespace, pod.Name, mount.Name)
		}
		hostDir := filepath.Join(scratch, "volumes", v.Name)
		if v.PersistentVolumeClaim != nil {
			claim, err := k.client.CoreV1().PersistentVolumeClaims(pod.Namespace).Get(ctx, v.PersistentVolumeClaim.ClaimName, metav1.GetOptions{})
			if err != nil {
				return nil, fmt.Errorf("volume %q of pod %s/%s: %w", v.Name, pod.Namespace, pod.Name, err)
			}
			hostDir = filepath.Join(k.dataDir, "claims", string(claim.UID))
		}
		if mount.SubPath != "" {
			hostDir = filepath.Join(hostDir, filepath.Clean("/"+mount.SubPath))
		}
		if err := os.MkdirAll(hostDir, 0o755); err != nil {
			return nil, err
		}
		binds = append(binds, volumeBind{hostDir: hostDir, mountPath: filepath.Clean("/" + mount.MountPath)})
	}
	return binds, nil
}

// allocateIP gives each Pod its own loopback address, of this process's block.
func (k *kubelet) allocateIP(pod *corev1.Pod) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := k.nextIP
	k.nextIP++
	ip := k.addresses.address(n)
	k.ipByPod[types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}] = ip
	return ip
}

func (k *kubelet) podIP(key types.NamespacedName) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.ipByPod[key]
}

func (k *kubelet) isRunning(uid types.UID) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.running[uid] != nil
}

func (k *kubelet) hasExited(uid types.UID) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.exited[uid]
}

func (k *kubelet) stop(uid types.UID) {
	k.mu.Lock()
	run := k.running[uid]
	delete(k.running, uid)
	k.mu.Unlock()
	if run == nil {
		return
	}
	run.process.stop()
	_ = os.RemoveAll(run.scratch)
}

func (k *kubelet) stopByName(key types.NamespacedName) {
	k.mu.Lock()
	var uid types.UID
	for u, run := range k.running {
		if run.key == key {
			uid = u
		}
	}
	k.mu.Unlock()
	if uid != "" {
		k.stop(uid)
	}
}

// stopAll ends every Pod's processes; the cluster is going away.
func (k *kubelet) stopAll() {
	k.mu.Lock()
	uids := make([]types.UID, 0, len(k.running))
	for uid := range k.running {
		uids = append(uids, uid)
	}
	k.mu.Unlock()
	for _, uid := range uids {
		k.stop(uid)
	}
	k.addresses.release()
}

func (k *kubelet) setFailure(ns string, failure podFailure) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.failures[ns] = failure
}

func (k *kubelet) linger(ns string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.lingering[ns] = true
}

// endLingering lets the deleted Pods of ns end, as any deleted Pod does.
func (k *kubelet) endLingering(ns string) {
	k.mu.Lock()
	delete(k.lingering, ns)
	k.mu.Unlock()
	pods, _ := k.pods.Pods(ns).List(labels.Everything())
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil {
			k.queue.Add(types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name})
		}
	}
}

func (k *kubelet) lingers(ns string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.lingering[ns]
}

func (k *kubelet) clearFailure(ns string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.failures, ns)
}

func (k *kubelet) failureFor(ns string) (podFailure, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	f, ok := k.failures[ns]
	return f, ok
}

// sandboxRootDir is the --root-dir the container asks sandboxd for, or
// sandboxd's default.
func sandboxRootDir(container corev1.Container) string {
	args := append(append([]string{}, container.Command...), container.Args...)
	for i, arg := range args {
		if v, ok := strings.CutPrefix(arg, "--root-dir="); ok {
			return v
		}
		if arg == "--root-dir" && i+1 < len(args) {
			return args[i+1]
		}
	}
	return "/workspace"
}

// containerEnv is the container's literal environment over a plain PATH.
func containerEnv(container corev1.Container) []string {
	env := []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root"}
	for _, e := range container.Env {
		if e.ValueFrom == nil {
			env = append(env, e.Name+"="+e.Value)
		}
	}
	return env
}
