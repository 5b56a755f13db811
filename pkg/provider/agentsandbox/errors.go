package agentsandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/auxilia/sandboxes/pkg/provider"
)

var failure = provider.Failer(providerName)

// apiStatus is the API server's error answer, a metav1.Status
// (k8s.io/apimachinery/pkg/apis/meta/v1/types.go): its reason is one of
// the StatusReason words, its details name the fields an invalid object
// got wrong.
type apiStatus struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Reason  string `json:"reason"`
	Code    int    `json:"code"`
	Details *struct {
		Causes []struct {
			Field   string `json:"field"`
			Message string `json:"message"`
		} `json:"causes"`
	} `json:"details"`
}

func readStatus(body []byte) (apiStatus, bool) {
	var s apiStatus
	return s, json.Unmarshal(body, &s) == nil && s.Kind == "Status" && s.Message != ""
}

// words are an error answer's message (with its reason), or its status and text.
func words(a provider.Answer) string {
	if s, ok := readStatus(a.Body); ok {
		if s.Reason != "" {
			return fmt.Sprintf("%d %s: %s", a.Status, s.Reason, s.Message)
		}
		return fmt.Sprintf("%d: %s", a.Status, s.Message)
	}
	return provider.StatusWords(a)
}

// sandboxOps are the calls about one Sandbox, whose 404 is the Sandbox gone.
var sandboxOps = map[string]bool{"reconnect": true, "pause": true, "destroy": true, "relabel": true, "wait": true,
	"update network": true}

// apiRefusal sorts the API server's error answers (StatusReason in
// k8s.io/apimachinery/pkg/apis/meta/v1/types.go): 401 the credentials;
// 403 a ResourceQuota's "exceeded quota" (the quota admission plugin's
// words) the account's limits, else RBAC's refusal; 404 a Sandbox gone;
// 409 a conflict; 422 the object refused, naming our setting when the
// field is one of ours; 429 too many calls.
func apiRefusal(op string, a provider.Answer) error {
	msg := words(a)
	s, _ := readStatus(a.Body)
	switch {
	case a.Status == http.StatusUnauthorized:
		return failure(provider.ErrUnauthorized, op, "%s", msg)
	case a.Status == http.StatusForbidden && strings.Contains(s.Message, "exceeded quota"):
		return failure(provider.ErrQuota, op, "%s", msg)
	case a.Status == http.StatusForbidden:
		return failure(provider.ErrUnauthorized, op, "%s", msg)
	case a.Status == http.StatusNotFound && sandboxOps[op]:
		return failure(provider.ErrGone, op, "%s", msg)
	case a.Status == http.StatusConflict:
		return failure(provider.ErrFailed, op, "conflict: %s", msg)
	case a.Status == http.StatusUnprocessableEntity, a.Status == http.StatusBadRequest:
		err := failure(provider.ErrInvalidConfig, op, "%s", msg)
		err.Field = settingOf(s)
		return err
	}
	return failure(provider.StatusKind(a.Status), op, "%s", msg)
}

// settingOf is the config setting an invalid object's first refused
// field comes from, "" when it is none of ours.
func settingOf(s apiStatus) string {
	if s.Details == nil {
		return ""
	}
	for _, c := range s.Details.Causes {
		f := c.Field
		switch {
		case strings.Contains(f, ".image"):
			return "image"
		case strings.Contains(f, ".resources"):
			return "resources"
		case strings.Contains(f, "runtimeClassName"):
			return "runtime_class_name"
		case strings.HasPrefix(f, "metadata.labels"), strings.Contains(f, "metadata.labels"):
			return "labels"
		case strings.Contains(f, "workingDir"), strings.Contains(f, "mountPath"):
			return "workdir"
		}
	}
	return ""
}
