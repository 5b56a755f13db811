package agentsandbox

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"

	"sigs.k8s.io/yaml"
)

// kubeconfig is the part of a kubeconfig file (clientcmd's v1.Config)
// this provider reads: the current context's cluster and user, with
// every credential inline. Settings that point at files or run programs
// (certificate-authority, client-certificate, tokenFile, exec,
// auth-provider) are refused: a sandbox's secret never reaches into the
// server's own disk.
type kubeconfig struct {
	CurrentContext string `json:"current-context"`
	Clusters       []struct {
		Name    string      `json:"name"`
		Cluster clusterInfo `json:"cluster"`
	} `json:"clusters"`
	Users []struct {
		Name string   `json:"name"`
		User userInfo `json:"user"`
	} `json:"users"`
	Contexts []struct {
		Name    string `json:"name"`
		Context struct {
			Cluster string `json:"cluster"`
			User    string `json:"user"`
		} `json:"context"`
	} `json:"contexts"`
}

type clusterInfo struct {
	Server                   string `json:"server"`
	CertificateAuthorityData string `json:"certificate-authority-data"`
	CertificateAuthority     string `json:"certificate-authority"`
	InsecureSkipTLSVerify    bool   `json:"insecure-skip-tls-verify"`
	TLSServerName            string `json:"tls-server-name"`
	ProxyURL                 string `json:"proxy-url"`
}

type userInfo struct {
	Token                 string          `json:"token"`
	TokenFile             string          `json:"tokenFile"`
	ClientCertificateData string          `json:"client-certificate-data"`
	ClientKeyData         string          `json:"client-key-data"`
	ClientCertificate     string          `json:"client-certificate"`
	ClientKey             string          `json:"client-key"`
	Username              string          `json:"username"`
	Password              string          `json:"password"`
	Exec                  *map[string]any `json:"exec"`
	AuthProvider          *map[string]any `json:"auth-provider"`
}

// apiServer is how the cluster's API server is reached: its address, the
// TLS it is spoken to with, and the bearer token (when the user has one).
type apiServer struct {
	base  string
	tls   *tls.Config
	token func() (string, error)
}

// errKubeconfig is a kubeconfig that cannot be used. Its words name the
// part at fault and never quote a value.
type errKubeconfig struct{ msg string }

func (e errKubeconfig) Error() string { return "kubeconfig: " + e.msg }

func badKubeconfig(format string, args ...any) error {
	return errKubeconfig{msg: fmt.Sprintf(format, args...)}
}

// parseKubeconfig reads the current context's cluster and user from a
// kubeconfig's YAML (or JSON).
func parseKubeconfig(raw []byte) (apiServer, error) {
	var kc kubeconfig
	if err := yaml.Unmarshal(raw, &kc); err != nil {
		// The parser's words may quote the document, secrets included.
		return apiServer{}, badKubeconfig("is not a YAML kubeconfig")
	}
	if kc.CurrentContext == "" {
		return apiServer{}, badKubeconfig("current-context is not set")
	}
	var clusterName, userName string
	found := false
	for _, c := range kc.Contexts {
		if c.Name == kc.CurrentContext {
			clusterName, userName, found = c.Context.Cluster, c.Context.User, true
			break
		}
	}
	if !found {
		return apiServer{}, badKubeconfig("current-context %q is not among its contexts", kc.CurrentContext)
	}
	var cluster *clusterInfo
	for i := range kc.Clusters {
		if kc.Clusters[i].Name == clusterName {
			cluster = &kc.Clusters[i].Cluster
			break
		}
	}
	if cluster == nil {
		return apiServer{}, badKubeconfig("context %q names cluster %q, which is not among its clusters", kc.CurrentContext, clusterName)
	}
	var user *userInfo
	for i := range kc.Users {
		if kc.Users[i].Name == userName {
			user = &kc.Users[i].User
			break
		}
	}
	if user == nil {
		return apiServer{}, badKubeconfig("context %q names user %q, which is not among its users", kc.CurrentContext, userName)
	}
	return serverFrom(clusterName, *cluster, userName, *user)
}

func serverFrom(clusterName string, c clusterInfo, userName string, u userInfo) (apiServer, error) {
	where := fmt.Sprintf("cluster %q", clusterName)
	base, err := serverURL(c.Server)
	if err != nil {
		return apiServer{}, badKubeconfig("%s: server %s", where, err)
	}
	switch {
	case c.CertificateAuthority != "":
		return apiServer{}, badKubeconfig("%s: certificate-authority names a file; give certificate-authority-data instead", where)
	case c.ProxyURL != "":
		return apiServer{}, badKubeconfig("%s: proxy-url is not supported", where)
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: c.TLSServerName}
	if c.CertificateAuthorityData != "" {
		pool, err := certPool(c.CertificateAuthorityData)
		if err != nil {
			return apiServer{}, badKubeconfig("%s: certificate-authority-data %s", where, err)
		}
		cfg.RootCAs = pool
	}
	if c.InsecureSkipTLSVerify {
		if c.CertificateAuthorityData != "" {
			return apiServer{}, badKubeconfig("%s: insecure-skip-tls-verify and certificate-authority-data cannot both be set", where)
		}
		cfg.InsecureSkipVerify = true //nolint:gosec // the kubeconfig asks for it, as kubectl honours it
	}
	who := fmt.Sprintf("user %q", userName)
	switch {
	case u.Exec != nil:
		return apiServer{}, badKubeconfig("%s: exec credential plugins are not supported; give a token or client-certificate-data and client-key-data", who)
	case u.AuthProvider != nil:
		return apiServer{}, badKubeconfig("%s: auth-provider is not supported; give a token or client-certificate-data and client-key-data", who)
	case u.TokenFile != "":
		return apiServer{}, badKubeconfig("%s: tokenFile names a file; give token instead", who)
	case u.ClientCertificate != "" || u.ClientKey != "":
		return apiServer{}, badKubeconfig("%s: client-certificate and client-key name files; give client-certificate-data and client-key-data instead", who)
	case u.Username != "" || u.Password != "":
		return apiServer{}, badKubeconfig("%s: basic authentication is not supported; give a token or a client certificate", who)
	case (u.ClientCertificateData == "") != (u.ClientKeyData == ""):
		return apiServer{}, badKubeconfig("%s: client-certificate-data and client-key-data go together", who)
	case u.ClientCertificateData == "" && u.Token == "":
		return apiServer{}, badKubeconfig("%s: has no credentials; give a token or client-certificate-data and client-key-data", who)
	}
	if u.ClientCertificateData != "" {
		certPEM, err1 := base64.StdEncoding.DecodeString(u.ClientCertificateData)
		keyPEM, err2 := base64.StdEncoding.DecodeString(u.ClientKeyData)
		if err1 != nil || err2 != nil {
			return apiServer{}, badKubeconfig("%s: client-certificate-data and client-key-data must be base64", who)
		}
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return apiServer{}, badKubeconfig("%s: client-certificate-data and client-key-data are not a PEM certificate and its key", who)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	s := apiServer{base: base, tls: cfg}
	if token := strings.TrimSpace(u.Token); token != "" {
		s.token = func() (string, error) { return token, nil }
	}
	return s, nil
}

// serverURL checks a cluster's server: an https URL (http only for a
// local test server) with a host and no query.
func serverURL(raw string) (string, error) {
	if raw == "" {
		return "", errors.New("is not set")
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.User != nil {
		return "", errors.New("must be an https URL")
	}
	return strings.TrimSuffix(u.String(), "/"), nil
}

func certPool(b64 string) (*x509.CertPool, error) {
	pem, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, errors.New("must be base64")
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, errors.New("holds no PEM certificate")
	}
	return pool, nil
}

// inCluster is where a pod finds its service account and the API server
// (rest.InClusterConfig in client-go reads the same).
type inCluster struct {
	TokenPath, CAPath string
	Host, Port        string
}

// serviceAccountDir holds the token and CA the kubelet mounts in every pod.
const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

func defaultInCluster() inCluster {
	return inCluster{TokenPath: serviceAccountDir + "/token", CAPath: serviceAccountDir + "/ca.crt",
		Host: os.Getenv("KUBERNETES_SERVICE_HOST"), Port: os.Getenv("KUBERNETES_SERVICE_PORT")}
}

// errNotInCluster: no kubeconfig was given and the server runs outside a cluster.
var errNotInCluster = errors.New("no kubeconfig is given and this server does not run in a Kubernetes cluster")

// server is the API server as the pod's service account reaches it. The
// token is read at each call: the kubelet rotates it.
func (ic inCluster) server() (apiServer, error) {
	if ic.Host == "" || ic.Port == "" {
		return apiServer{}, errNotInCluster
	}
	ca, err := os.ReadFile(ic.CAPath)
	if err != nil {
		return apiServer{}, fmt.Errorf("the service account's CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return apiServer{}, errors.New("the service account's CA holds no PEM certificate")
	}
	token := func() (string, error) {
		b, err := os.ReadFile(ic.TokenPath)
		if err != nil {
			return "", fmt.Errorf("the service account's token: %w", err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	return apiServer{base: "https://" + net.JoinHostPort(ic.Host, ic.Port),
		tls: &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: pool}, token: token}, nil
}
