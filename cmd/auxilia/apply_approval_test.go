package main_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

const strictManifest = `
sandboxes:
  - {name: Local, provider: local}
agents:
  - name: Analyst
    sandbox: Local
    tools: {write_file: needs_approval}
    approval: {granted_by: admin, with_call: false}
`

// A binding's approval rule goes through apply and export and back
// unchanged; a file that leaves it out keeps the server's, even when the
// binding is put again for another change, and a change is shown as a diff.
func TestApplyKeepsABindingsApprovalRule(t *testing.T) {
	srv := startServer(t, "AUXILIA_DATA_DIR="+t.TempDir(), "DATABASE_URL=", "AUXILIA_SECRET_KEYS=",
		"AUXILIA_BOOTSTRAP_TOKEN="+adminToken)
	env := []string{"AUXILIA_URL=" + srv.URL, "AUXILIA_TOKEN=" + adminToken}
	cli(t, env, "apply", "-f", manifestFile(t, strictManifest))
	exported := cli(t, env, "export")
	assert.Contains(t, exported, "granted_by: admin")
	assert.Contains(t, exported, "with_call: false")
	assert.Equal(t, "no changes\n", cli(t, env, "apply", "-f", manifestFile(t, exported)), "what export writes, apply reads back unchanged")

	unruled := strings.NewReplacer("needs_approval", "disabled", "    approval: {granted_by: admin, with_call: false}\n", "").Replace(strictManifest)
	assert.Equal(t, `~ agent "Analyst": tools.write_file needs_approval → disabled`+"\n", cli(t, env, "apply", "-f", manifestFile(t, unruled)))
	exported = cli(t, env, "export")
	assert.Contains(t, exported, "granted_by: admin", "a rule the file leaves out stays as the server has it")
	assert.Contains(t, exported, "with_call: false")

	loosened := strings.Replace(strictManifest, "{granted_by: admin, with_call: false}", "{granted_by: someone_else}", 1)
	assert.Equal(t, `~ agent "Analyst": tools.write_file disabled → needs_approval; approval.granted_by admin → someone_else`+"\n",
		cli(t, env, "apply", "-f", manifestFile(t, loosened)))
	exported = cli(t, env, "export")
	assert.Contains(t, exported, "granted_by: someone_else")
	assert.Contains(t, exported, "with_call: false", "what the file's rule leaves out stays too")

	out := cliFails(t, env, "apply", "-f", manifestFile(t, `
agents:
  - name: Analyst
    sandbox: Local
    approval: {granted_by: the_boss, who: me, with_call: sometimes}
  - name: Loose
    approval: {granted_by: anyone}
  - name: Odd
    sandbox: Local
    approval: admin
`))
	for _, want := range []string{
		`agents[0].approval.who: is not a member of agents[0].approval (it has granted_by, with_call)`,
		`agents[0].approval.with_call: must be a bool`,
		`agents[1].approval: needs a sandbox to bind`,
		`agents[2].approval: must be a mapping (it has granted_by, with_call)`,
	} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, cli(t, env, "export"), "Loose", "nothing is applied")

	out = cliFails(t, env, "apply", "-f", manifestFile(t, strings.Replace(strictManifest, "granted_by: admin", "granted_by: the_boss", 1)))
	assert.Contains(t, out, `agents[0].approval.granted_by: must be anyone, someone_else or admin`)
}
