package main_test

import (
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replicas starts n servers of the binary on one fresh Postgres database.
func replicas(t *testing.T, n int, env ...string) []*server {
	t.Helper()
	keys := strings.TrimSpace(cli(t, nil, "keys", "generate"))
	noLeak(keys)
	shared := append([]string{"DATABASE_URL=" + storetest.NewEmptyPostgresDatabase(t), "AUXILIA_SECRET_KEYS=" + keys,
		"AUXILIA_BOOTSTRAP_TOKEN=" + adminToken, "AUXILIA_LOCAL_PROVIDER=off"}, env...)
	var out []*server
	for i := 0; i < n; i++ {
		out = append(out, startServer(t, append([]string{"AUXILIA_DATA_DIR=" + t.TempDir()}, shared...)...))
	}
	return out
}

// live lists the fake's sandboxes that are not destroyed.
func live(fake *daytonatest.Server) []string {
	var out []string
	for _, id := range fake.Sandboxes() {
		if state, _ := fake.State(id); state != "destroyed" && state != "destroying" {
			out = append(out, id)
		}
	}
	return out
}

func TestReplicasMakeOneInstancePerThread(t *testing.T) {
	fake, err := daytonatest.New(daytonatest.Options{Transition: 2})
	require.NoError(t, err)
	defer fake.Close()
	servers := replicas(t, 3)
	agent := bindNew(t, servers[0], map[string]any{"name": "Daytona", "provider": "daytona", "url": fake.URL(), "secret": daytonatest.DefaultKey})

	const starts = 200
	var wg sync.WaitGroup
	statuses := make([]int, starts)
	instances := make([]string, starts)
	for i := 0; i < starts; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, run := startRun(t, servers[i%len(servers)], agent, "one-thread")
			statuses[i] = status
			if sb, ok := run["sandbox"].(map[string]any); ok {
				instances[i] = sb["instance_id"].(string)
			}
		}()
	}
	wg.Wait()
	for i, s := range statuses {
		require.Equal(t, 201, s, "start %d", i)
		assert.Equal(t, instances[0], instances[i])
	}
	assert.Len(t, fake.Sandboxes(), 1, "exactly one instance was created at the provider")
}

func TestAKilledReplicaLeavesNoOrphanOrDuplicate(t *testing.T) {
	fake, err := daytonatest.New(daytonatest.Options{Transition: 3})
	require.NoError(t, err)
	defer fake.Close()
	servers := replicas(t, 2, "AUXILIA_CREATE_TIMEOUT=3s", "AUXILIA_REAPER_INTERVAL=500ms")
	doomed, survivor := servers[0], servers[1]
	agent := bindNew(t, survivor, map[string]any{"name": "Daytona", "provider": "daytona", "url": fake.URL(), "secret": daytonatest.DefaultKey})

	threads := []string{"a", "b", "c", "d"}
	for _, th := range threads {
		go fireAndForget(doomed.URL + "/api/v1/agents/" + agent + "/threads/" + th + "/runs") // their server dies
	}
	for deadline := time.Now().Add(20 * time.Second); len(fake.Sandboxes()) < len(threads); time.Sleep(10 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "the creations never reached the provider")
	}
	require.NoError(t, doomed.cmd.Process.Signal(syscall.SIGKILL))
	<-doomed.done
	orphans := fake.Sandboxes()

	// The survivor's reaper destroys what the dead replica was creating once
	// its lease is over; runs on the same threads then get one instance each.
	// Killed in the middle of a reaper pass, the dead replica holds the
	// reaper's job lease until its term (30 s) runs out: the survivor's
	// first pass may come only then.
	for deadline := time.Now().Add(store.DefaultLeaseTerm + 30*time.Second); len(live(fake)) > 0; time.Sleep(100 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "the abandoned creations were never destroyed: %v\n%s", live(fake), survivor.logs())
	}
	ids := map[string]bool{}
	for _, th := range threads {
		status, run := startRun(t, survivor, agent, th)
		require.Equal(t, 201, status, "%v", run)
		ids[run["sandbox"].(map[string]any)["instance_id"].(string)] = true
	}
	assert.Len(t, ids, len(threads), "one instance per thread")
	assert.ElementsMatch(t, keys(ids), live(fake), "and nothing else alive at the provider")
	for _, id := range orphans {
		assert.False(t, ids[id], "no thread uses an instance of the dead replica")
	}
}

// A replica killed while the provider makes an instance (the answer to its
// create never arrives) leaves that instance behind with no id recorded: the
// survivor's reaper finds it by its creation label and destroys it.
func TestAReplicaKilledMidCreateLeavesNoOrphan(t *testing.T) {
	fake := opensandboxtest.New(t, opensandboxtest.Options{})
	fake.Inject(opensandboxtest.OpCreate, opensandboxtest.Fault{Lost: true, Delay: time.Minute})
	servers := replicas(t, 2, "AUXILIA_CREATE_TIMEOUT=3s", "AUXILIA_REAPER_INTERVAL=500ms")
	doomed, survivor := servers[0], servers[1]
	agent := bindNew(t, survivor, map[string]any{"name": "OpenSandbox", "provider": "opensandbox", "url": fake.URL})

	threads := []string{"a", "b"}
	for _, th := range threads {
		go fireAndForget(doomed.URL + "/api/v1/agents/" + agent + "/threads/" + th + "/runs")
	}
	for deadline := time.Now().Add(20 * time.Second); len(fake.Sandboxes()) < len(threads); time.Sleep(10 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "the creations never reached the provider")
	}
	require.NoError(t, doomed.cmd.Process.Signal(syscall.SIGKILL))
	<-doomed.done
	fake.ClearFaults()
	orphans := fake.Sandboxes()

	// As above: the dead replica may hold the reaper's job lease to its term.
	for deadline := time.Now().Add(store.DefaultLeaseTerm + 30*time.Second); len(fake.Sandboxes()) > 0; time.Sleep(100 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "the orphans were never found and destroyed: %v\n%s", fake.Sandboxes(), survivor.logs())
	}
	assert.Positive(t, fake.Calls(opensandboxtest.OpList), "found by listing with the creation label")
	ids := map[string]bool{}
	for _, th := range threads {
		status, run := startRun(t, survivor, agent, th)
		require.Equal(t, 201, status, "%v", run)
		ids[run["sandbox"].(map[string]any)["instance_id"].(string)] = true
	}
	assert.ElementsMatch(t, keys(ids), fake.Sandboxes(), "one instance per thread, nothing else alive at the provider")
	for _, id := range orphans {
		assert.False(t, ids[id], "no thread uses an orphan")
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// fireAndForget starts a run whose answer never comes.
func fireAndForget(url string) {
	req, err := http.NewRequest("POST", url, nil)
	if err != nil {
		return
	}
	req.Header.Set("Authorization", "Bearer "+adminToken)
	if res, err := http.DefaultClient.Do(req); err == nil {
		res.Body.Close()
	}
}
