package opensandboxtest_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
)

func TestPatchMetadataMergesAsTheServer(t *testing.T) {
	fake := opensandboxtest.New(t, opensandboxtest.Options{})
	labelled := strings.Replace(validCreate, `"timeout":600`, `"timeout":600,"metadata":{"team":"infra","note":"demo"}`, 1)
	status, created, raw := call(t, "POST", fake.URL+"/v1/sandboxes", labelled, nil)
	require.Equal(t, 202, status, raw)
	id := created["id"].(string)
	patch := func(body string) (int, map[string]any, string) {
		return call(t, "PATCH", fake.URL+"/v1/sandboxes/"+id+"/metadata", body, nil)
	}

	status, body, raw := patch(`{"team":"data","note":null,"owner":"ada"}`)
	require.Equal(t, 200, status, raw)
	assert.Equal(t, id, body["id"], "the answer is the whole sandbox")
	want := map[string]any{"team": "data", "owner": "ada"}
	assert.Equal(t, want, body["metadata"], "a value replaces, a null deletes")
	_, got, _ := call(t, "GET", fake.URL+"/v1/sandboxes/"+id, "", nil)
	assert.Equal(t, want, got["metadata"])
	_, listed, _ := call(t, "GET", fake.URL+"/v1/sandboxes?metadata="+url.QueryEscape("owner=ada"), "", nil)
	assert.Len(t, listed["items"], 1, "the list filters by the patched metadata")

	status, body, _ = patch(`{}`)
	assert.Equal(t, 200, status)
	assert.Equal(t, want, body["metadata"], "an absent key stays")

	for _, bad := range []struct{ body, code string }{
		{`{"opensandbox.io/id":"x"}`, "INVALID_METADATA_LABEL"},
		{`{"thread":"slack:C1"}`, "SANDBOX::INVALID_METADATA_LABEL"},
	} {
		status, body, _ := patch(bad.body)
		assert.Equal(t, 400, status, bad.body)
		assert.Equal(t, bad.code, body["code"], bad.body)
	}
	status, _, _ = patch(`["team"]`)
	assert.Equal(t, 422, status, "the body must be an object")
	_, got, _ = call(t, "GET", fake.URL+"/v1/sandboxes/"+id, "", nil)
	assert.Equal(t, want, got["metadata"], "a refused patch changes nothing")

	status, body, _ = call(t, "PATCH", fake.URL+"/v1/sandboxes/nope/metadata", `{"a":"b"}`, nil)
	assert.Equal(t, 404, status)
	assert.Equal(t, "DOCKER::SANDBOX_NOT_FOUND", body["code"])
}

func TestAnOlderServerHasNoMetadataPatch(t *testing.T) {
	fake := opensandboxtest.New(t, opensandboxtest.Options{NoMetadataPatch: true})
	status, created, raw := call(t, "POST", fake.URL+"/v1/sandboxes", validCreate, nil)
	require.Equal(t, 202, status, raw)
	status, body, _ := call(t, "PATCH", fake.URL+"/v1/sandboxes/"+created["id"].(string)+"/metadata", `{"a":"b"}`, nil)
	assert.Equal(t, 404, status)
	assert.Equal(t, "Not Found", body["detail"], "the framework's own 404, not the sandbox's")
}
