package kubetest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// AdminKubeconfig is a kubeconfig for the cluster administrator.
func (c *Cluster) AdminKubeconfig() []byte {
	out, err := kubeconfig(c.config.Host, c.config.CAData, c.config.ServerName, c.config.BearerToken, "")
	if err != nil {
		panic(err)
	}
	return out
}

// Kubeconfig is a kubeconfig for a new ServiceAccount in ns that may do
// exactly what rules allow there, through a Role and RoleBinding, with a
// token the API server issued for it. Its context's namespace is ns.
func (c *Cluster) Kubeconfig(t testing.TB, ns string, rules []rbacv1.PolicyRule) []byte {
	t.Helper()
	ctx := context.Background()
	core, rbac := c.kube.CoreV1(), c.kube.RbacV1()
	sa, err := core.ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "kubetest-"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("kubetest: create service account: %v", err)
	}
	role, err := rbac.Roles(ns).Create(ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: sa.Name},
		Rules:      rules,
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("kubetest: create role: %v", err)
	}
	_, err = rbac.RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: sa.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: sa.Name}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("kubetest: create role binding: %v", err)
	}
	if err := c.untilGranted(ctx, ns, sa.Name, rules); err != nil {
		t.Fatalf("kubetest: %v", err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		_ = rbac.RoleBindings(ns).Delete(ctx, sa.Name, metav1.DeleteOptions{})
		_ = rbac.Roles(ns).Delete(ctx, sa.Name, metav1.DeleteOptions{})
		_ = core.ServiceAccounts(ns).Delete(ctx, sa.Name, metav1.DeleteOptions{})
	})
	hour := int64(3600)
	token, err := core.ServiceAccounts(ns).CreateToken(ctx, sa.Name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &hour},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("kubetest: token for service account: %v", err)
	}
	out, err := kubeconfig(c.config.Host, c.config.CAData, c.config.ServerName, token.Status.Token, ns)
	if err != nil {
		t.Fatalf("kubetest: write kubeconfig: %v", err)
	}
	return out
}

// untilGranted waits until the API server's authorizer, which reads
// roles and bindings through its own informers, grants the service
// account what each rule names: a test's first call would otherwise race
// the binding it was just given.
func (c *Cluster) untilGranted(ctx context.Context, ns, account string, rules []rbacv1.PolicyRule) error {
	user := "system:serviceaccount:" + ns + ":" + account
	for _, rule := range rules {
		if len(rule.APIGroups) == 0 || len(rule.Resources) == 0 || len(rule.Verbs) == 0 {
			continue
		}
		resource, sub, _ := strings.Cut(rule.Resources[0], "/")
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: user,
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: rule.Verbs[0],
				Group: rule.APIGroups[0], Resource: resource, Subresource: sub}}}
		err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			answer, err := c.kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
			return err == nil && answer.Status.Allowed, err
		})
		if err != nil {
			return fmt.Errorf("the role of %s is never in force for %s %s: %w", user, rule.Verbs[0], rule.Resources[0], err)
		}
	}
	return nil
}

func kubeconfig(server string, caData []byte, serverName, token, namespace string) ([]byte, error) {
	const name = "kubetest"
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[name] = &clientcmdapi.Cluster{
		Server:                   server,
		CertificateAuthorityData: caData,
		TLSServerName:            serverName,
	}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name, Namespace: namespace}
	cfg.CurrentContext = name
	return clientcmd.Write(*cfg)
}
