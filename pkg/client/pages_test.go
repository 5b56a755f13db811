package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pagedAgents serves n agents, size a page, the page token being the index
// of the page's first; it records the tokens asked for.
func pagedAgents(t *testing.T, n, size int, asked *[]string) *API {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token := r.URL.Query().Get("page_token")
		*asked = append(*asked, token)
		from, _ := strconv.Atoi(token)
		list := AgentList{Items: []Agent{}}
		for i := from; i < min(from+size, n); i++ {
			list.Items = append(list.Items, Agent{Id: uuid.New(), Name: "agent " + strconv.Itoa(i)})
		}
		if from+size < n {
			list.NextPageToken = strconv.Itoa(from + size)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(list)
	}))
	t.Cleanup(srv.Close)
	api, err := New(srv.URL, "aux_token", Options{Backoff: func(int) time.Duration { return 0 }})
	require.NoError(t, err)
	return api
}

func TestAListIsReadPageAfterPage(t *testing.T) {
	var asked []string
	api := pagedAgents(t, 5, 2, &asked)
	var names []string
	for agent, err := range Agents(context.Background(), api, ListAgentsParams{}) {
		require.NoError(t, err)
		names = append(names, agent.Name)
	}
	assert.Equal(t, []string{"agent 0", "agent 1", "agent 2", "agent 3", "agent 4"}, names)
	assert.Equal(t, []string{"", "2", "4"}, asked)
}

// A loop that stops early asks for no page past the one it stopped in; a
// page token given is where the list begins.
func TestAListIsReadNoFurtherThanTheCallerGoes(t *testing.T) {
	var asked []string
	api := pagedAgents(t, 5, 2, &asked)
	start := "2"
	for agent, err := range Agents(context.Background(), api, ListAgentsParams{PageToken: &start}) {
		require.NoError(t, err)
		assert.Equal(t, "agent 2", agent.Name)
		break
	}
	assert.Equal(t, []string{"2"}, asked)
}

// A refusal ends the list as an *Error.
func TestAListsRefusalIsAnError(t *testing.T) {
	f := &fakeServer{script: []int{401}}
	api := newTestClient(t, f)
	var errs []error
	for _, err := range Sandboxes(context.Background(), api, ListSandboxesParams{}) {
		errs = append(errs, err)
	}
	require.Len(t, errs, 1)
	var problem *Error
	require.ErrorAs(t, errs[0], &problem)
	assert.Equal(t, 401, problem.Status)
}
