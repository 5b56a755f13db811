// Package kubetest runs a real Kubernetes control plane inside a test binary:
// kube-apiserver on an embedded etcd, agent-sandbox's CRDs and reconcilers,
// the kube-controller-manager loops the sandbox lifecycle needs (garbage
// collector, namespace, service account, PVC protection), and a small node
// agent that plays the kubelet's part for Pods by running sandboxd per Pod on
// its own loopback address, isolated from the host's files.
//
// There is no scheduler, no PV controller and no networking: Pods are bound
// to the one Node by the node agent, claims stay Pending (each claim is a
// host folder that outlives its Pods), and Services get no endpoints; a Pod
// is reached on its pod IP. Only the first container of a Pod runs (as
// sandboxd, whatever its image); the others are reported running.
//
// The node agent owns only what a kubelet owns: binding a Pod to the one
// Node, its status (phase, conditions, pod IP, container states) and the
// final removal of a Pod being deleted. Sandbox, Service, PVC and warm-pool
// behaviour comes from agent-sandbox's own controllers; quota refusals come
// from the API server's admission.
//
// One cluster serves a whole test binary: call Start from each test and Stop
// from TestMain after m.Run.
package kubetest
