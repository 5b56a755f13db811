// Package agentsandbox holds the Kubernetes provider's suites, run against
// the test cluster of kubetest: a real kube-apiserver with agent-sandbox's
// controllers, whose Pods run sandboxd. They live in this module so that
// the product's own module stays free of Kubernetes.
package agentsandbox
