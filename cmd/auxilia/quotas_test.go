package main_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Three replicas on one Postgres, many run starts racing for the last
// rooms of the instances quota on threads of their own: exactly the quota
// is made at the provider, every other start is refused with
// quota_exceeded, and a quota raised with the command line beside the
// running servers lets exactly one more through.
func TestReplicasRacingMakeExactlyTheQuota(t *testing.T) {
	fake, err := daytonatest.New(daytonatest.Options{Transition: 1})
	require.NoError(t, err)
	defer fake.Close()
	dbURL := storetest.NewEmptyPostgresDatabase(t)
	keys := strings.TrimSpace(cli(t, nil, "keys", "generate"))
	noLeak(keys)
	shared := []string{"DATABASE_URL=" + dbURL, "AUXILIA_SECRET_KEYS=" + keys, "AUXILIA_BOOTSTRAP_TOKEN=" + adminToken,
		"AUXILIA_LOCAL_PROVIDER=off", "AUXILIA_QUOTA_INSTANCES=3"}
	var servers []*server
	for range 3 {
		servers = append(servers, startServer(t, append([]string{"AUXILIA_DATA_DIR=" + t.TempDir()}, shared...)...))
	}
	agent := bindNew(t, servers[0], map[string]any{"name": "Daytona", "provider": "daytona", "url": fake.URL(), "secret": daytonatest.DefaultKey})

	const starts = 30
	var wg sync.WaitGroup
	statuses := make([]int, starts)
	bodies := make([]map[string]any, starts)
	for i := range starts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i], bodies[i] = startRun(t, servers[i%len(servers)], agent, fmt.Sprintf("thread-%d", i))
		}()
	}
	wg.Wait()
	made := 0
	for i, s := range statuses {
		switch s {
		case 201:
			made++
		case 429:
			assert.Equal(t, "quota_exceeded", bodies[i]["reason"])
			assert.Equal(t, "instances", bodies[i]["quota"])
			assert.EqualValues(t, 3, bodies[i]["limit"])
			assert.EqualValues(t, 3, bodies[i]["used"])
		default:
			t.Errorf("start %d answered %d: %v", i, s, bodies[i])
		}
	}
	assert.Equal(t, 3, made, "exactly the quota's starts made an instance")
	assert.Len(t, fake.Sandboxes(), 3, "and exactly the quota was made at the provider")

	env := []string{"DATABASE_URL=" + dbURL, "AUXILIA_SECRET_KEYS=" + keys, "AUXILIA_QUOTA_INSTANCES=3"}
	out := cli(t, env, "quotas", "set", "--workspace", "default", "--instances", "4")
	assert.Regexp(t, `(?m)^instances\s+4\s+workspace\s+3 \(75%\)$`, out)
	status, _ := startRun(t, servers[1], agent, "after-raise")
	assert.Equal(t, 201, status)
	status, body := startRun(t, servers[2], agent, "one-too-many")
	assert.Equal(t, 429, status, "%v", body)
	assert.Len(t, fake.Sandboxes(), 4)
}

const budgetNote = "The cost budget alerts at 80 and 100 %; it refuses nothing. Its cost is an estimate from the operator's rates, not a bill.\n"

// The operator sets a workspace's quotas and reads them back with their
// use; what it does not name keeps the server's default, and bad input is
// refused naming the flag.
func TestQuotasSetAndShow(t *testing.T) {
	env := []string{"AUXILIA_DATA_DIR=" + t.TempDir(), "AUXILIA_QUOTA_THREADS=5"}
	cli(t, env, "tokens", "create", "--workspace", "acme", "--role", "admin")

	out := cli(t, env, "quotas", "show", "--workspace", "acme")
	assert.Equal(t, "QUOTA              LIMIT  FROM            USED\n"+
		"instances          none   server default  0\n"+
		"instance_hours     none   server default  0\n"+
		"threads_per_agent  5      server default  0 (0%)\n"+
		"cost_budget        none   server default  not measured\n"+budgetNote, out)

	cli(t, env, "quotas", "set", "--workspace", "acme", "--instances", "10", "--instance-hours", "200")
	out = cli(t, env, "quotas", "set", "--workspace", "acme", "--threads-per-agent", "0")
	assert.Equal(t, "QUOTA              LIMIT  FROM            USED\n"+
		"instances          10     workspace       0 (0%)\n"+
		"instance_hours     200    workspace       0 (0%)\n"+
		"threads_per_agent  none   workspace       0\n"+
		"cost_budget        none   server default  not measured\n"+budgetNote, out)
	assert.Equal(t, out, cli(t, env, "quotas", "show", "--workspace", "acme"))

	out = cli(t, append(env, "AUXILIA_COST_RATES=local:running=2", "AUXILIA_COST_CURRENCY=EUR"), "quotas", "set", "--workspace", "acme", "--cost-budget", "120.5")
	assert.Contains(t, out, "cost_budget        120.50 EUR  workspace  0.00 EUR estimated (0%)\n"+budgetNote)
	assert.Contains(t, cliFails(t, env, "quotas", "set", "--workspace", "acme", "--cost-budget", "-3"),
		`--cost-budget must be an amount of 0 or more (0 for none), such as 500 or 99.50, not "-3"`)
	assert.Contains(t, cliFails(t, append(env, "AUXILIA_BUDGET_COST=lots"), "quotas", "show", "--workspace", "acme"),
		`AUXILIA_BUDGET_COST must be an amount of 0 or more (0 for none), such as 500 or 99.50, not "lots"`)
	assert.Contains(t, cliFails(t, env, "quotas", "set", "--workspace", "acme", "--instances", "-1"),
		"--instances must be a whole number (0 for no limit), not \"-1\"")
	assert.Contains(t, cliFails(t, env, "quotas", "set", "--workspace", "acme"), "give at least one of --instances")
	assert.Contains(t, cliFails(t, env, "quotas", "show", "--workspace", "nowhere"), `no workspace is called "nowhere"`)
	assert.Contains(t, cliFails(t, env, "quotas", "show"), "--workspace is required")
	assert.Contains(t, cliFails(t, append(env, "AUXILIA_QUOTA_INSTANCES=lots"), "quotas", "show", "--workspace", "acme"),
		`AUXILIA_QUOTA_INSTANCES must be a whole number (0 for no limit), not "lots"`)
}

// A bad alert webhook setting stops the server from starting, named, and
// never quoted back: its URL may carry a token.
func TestAlertWebhookSettingsAreChecked(t *testing.T) {
	env := []string{"AUXILIA_DATA_DIR=" + t.TempDir()}
	out := cliFails(t, append(env, "AUXILIA_ALERT_WEBHOOK_URL=ftp://hooks.example.com/T0K3N"), "quotas", "show", "--workspace", "acme")
	assert.Contains(t, out, "AUXILIA_ALERT_WEBHOOK_URL must be an absolute http:// or https:// URL")
	assert.NotContains(t, out, "T0K3N")
	out = cliFails(t, append(env, "AUXILIA_ALERT_WEBHOOK_SECRET=whsec-S3CR3T"), "quotas", "show", "--workspace", "acme")
	assert.Contains(t, out, "AUXILIA_ALERT_WEBHOOK_SECRET is set without AUXILIA_ALERT_WEBHOOK_URL")
	assert.NotContains(t, out, "S3CR3T")
}
