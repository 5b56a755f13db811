package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/auxilia/sandboxes/pkg/client"
)

// The README's walk-through, through the client: register a local sandbox,
// read its typed config back, see a bad one refused field by field, bind it
// to an agent, start a run and stream a command's output.
func Example() {
	ctx := context.Background()
	api, err := client.New(serverURL, token, client.Options{})
	if err != nil {
		log.Fatal(err)
	}

	var create client.SandboxCreate
	processes := 64
	_ = create.FromLocalSandboxCreate(client.LocalSandboxCreate{Name: "Local", Provider: client.LocalSandboxCreateProviderLocal,
		Config: &client.LocalConfigInput{MaxProcesses: &processes}})
	created, err := client.Expect(api.CreateSandboxWithResponse(ctx, nil, create))
	if err != nil {
		log.Fatal(err)
	}
	// A sandbox narrows on its provider: a local one's config is a LocalConfig.
	sandbox, _ := created.JSON201.ValueByDiscriminator()
	local := sandbox.(client.LocalSandbox)
	fmt.Println(local.Provider, local.Config.MaxProcesses, local.Config.Network.Default)

	_ = create.FromLocalSandboxCreate(client.LocalSandboxCreate{Name: "", Provider: client.LocalSandboxCreateProviderLocal})
	_, err = client.Expect(api.CreateSandboxWithResponse(ctx, nil, create))
	var problem *client.Error
	if errors.As(err, &problem) {
		fmt.Println(problem.Status, problem.Reason, problem.Fields())
	}

	agent, err := client.Expect(api.CreateAgentWithResponse(ctx, nil, client.AgentCreate{Name: "Analyst"}))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := client.Expect(api.BindSandboxWithResponse(ctx, agent.JSON201.Id, nil, client.BindingPut{SandboxId: local.Id})); err != nil {
		log.Fatal(err)
	}
	run, err := client.Expect(api.StartRunWithResponse(ctx, agent.JSON201.Id, "conversation-1", nil))
	if err != nil {
		log.Fatal(err)
	}
	for event, err := range client.Stream(ctx, api, run.JSON201.Id, nil, client.ExecuteRequest{Command: "python3 -c 'print(6*7)'"}) {
		if err != nil {
			log.Fatal(err)
		}
		switch event.Name {
		case "stdout", "stderr":
			fmt.Printf("%s: %q\n", event.Name, event.Output.Text)
		case "exit":
			fmt.Println("exit", event.Exit.ExitCode)
		}
	}
	// Output:
	// local 64 deny
	// 422 validation_failed [name]
	// stdout: "42\n"
	// exit 0
}

// A list, page after page: the iterator asks for the next page as the
// loop reaches it.
func ExampleAgents() {
	ctx := context.Background()
	api, err := client.New(serverURL, token, client.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, name := range []string{"Pager 1", "Pager 2", "Pager 3"} {
		if _, err := client.Expect(api.CreateAgentWithResponse(ctx, nil, client.AgentCreate{Name: name})); err != nil {
			log.Fatal(err)
		}
	}
	two := 2
	for agent, err := range client.Agents(ctx, api, client.ListAgentsParams{PageSize: &two}) {
		if err != nil {
			log.Fatal(err)
		}
		if strings.HasPrefix(agent.Name, "Pager") {
			fmt.Println(agent.Name)
		}
	}
	// Unordered output:
	// Pager 1
	// Pager 2
	// Pager 3
}
