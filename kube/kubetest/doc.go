// Package kubetest runs a real Kubernetes control plane inside a test binary:
// kube-apiserver on an embedded etcd, agent-sandbox's CRDs and reconcilers,
// the garbage collector and namespace controller, and a small node agent that
// plays the kubelet's part for Pods by running sandboxd per Pod on its own
// loopback address.
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
