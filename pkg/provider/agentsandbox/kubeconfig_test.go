package agentsandbox

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const secretToken = "s3cr3t-token-value"

func kubeconfigWith(cluster, user string) string {
	return `apiVersion: v1
kind: Config
current-context: work
contexts:
- name: work
  context: {cluster: c1, user: u1, namespace: agents}
clusters:
- name: c1
  cluster:
` + cluster + `
users:
- name: u1
  user:
` + user + "\n"
}

func TestAKubeconfigsCurrentContextIsRead(t *testing.T) {
	s, err := parseKubeconfig([]byte(kubeconfigWith("    server: https://10.0.0.1:6443/\n    insecure-skip-tls-verify: true",
		"    token: "+secretToken)))
	require.NoError(t, err)
	assert.Equal(t, "https://10.0.0.1:6443", s.base)
	assert.True(t, s.tls.InsecureSkipVerify)
	require.NotNil(t, s.token)
	token, err := s.token()
	require.NoError(t, err)
	assert.Equal(t, secretToken, token)
}

func TestAKubeconfigsBadPartIsNamedWithoutItsValue(t *testing.T) {
	secretData := base64.StdEncoding.EncodeToString([]byte("-----BEGIN NOT A CERT-----" + secretToken))
	cases := map[string]struct{ raw, says string }{
		"not yaml":         {"\t" + secretToken + ": [", "is not a YAML kubeconfig"},
		"no context":       {strings.Replace(kubeconfigWith("    server: https://k", "    token: "+secretToken), "current-context: work", "current-context: other", 1), `current-context "other" is not among its contexts`},
		"no server":        {kubeconfigWith("    insecure-skip-tls-verify: true", "    token: "+secretToken), `cluster "c1": server is not set`},
		"server not url":   {kubeconfigWith("    server: ftp://"+secretToken, "    token: x"), `cluster "c1": server must be an https URL`},
		"ca file":          {kubeconfigWith("    server: https://k\n    certificate-authority: /etc/ca.pem", "    token: x"), "certificate-authority names a file"},
		"ca data":          {kubeconfigWith("    server: https://k\n    certificate-authority-data: "+secretData, "    token: x"), "certificate-authority-data holds no PEM certificate"},
		"exec":             {kubeconfigWith("    server: https://k", "    exec: {command: /bin/"+secretToken+"}"), `user "u1": exec credential plugins are not supported`},
		"token file":       {kubeconfigWith("    server: https://k", "    tokenFile: /var/"+secretToken), "tokenFile names a file"},
		"no credentials":   {kubeconfigWith("    server: https://k", "    username: ''"), "has no credentials"},
		"half a cert":      {kubeconfigWith("    server: https://k", "    client-certificate-data: "+secretData), "go together"},
		"not a key pair":   {kubeconfigWith("    server: https://k", "    client-certificate-data: "+secretData+"\n    client-key-data: "+secretData), "are not a PEM certificate and its key"},
		"basic auth":       {kubeconfigWith("    server: https://k", "    username: ana\n    password: "+secretToken), "basic authentication is not supported"},
		"client cert file": {kubeconfigWith("    server: https://k", "    client-certificate: /x\n    client-key: /y"), "name files"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := parseKubeconfig([]byte(c.raw))
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.says)
			assert.NotContains(t, err.Error(), secretToken, "the secret never appears in an error")
			assert.NotContains(t, err.Error(), secretData)
		})
	}
}

func TestWithoutAKubeconfigOutsideAClusterEveryCallSaysSo(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Image = "ghcr.io/org/sandboxd:1.0"
	c, err := openClient(cfg, "", testPolicy, inCluster{})
	require.NoError(t, err, "opening never fails: the probe says why")
	err = c.Probe(t.Context())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "does not run in a Kubernetes cluster")
}
