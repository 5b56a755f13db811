package api

import (
	"encoding/json"
	"net/http"

	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/labstack/echo/v4"
)

// RunStartStep is the data of a run start stream's `step` events: a step
// as it begins, with a line that describes it.
type RunStartStep struct {
	// probing: the sandbox is asked whether it can be used; reconnecting:
	// the thread's instance (or a warm pool's) is reconnected, resumed when
	// paused; waiting: another run is making the thread's instance;
	// creating: the provider is making a new instance; installing: the
	// default packages are installed (pip's output follows as `output`
	// events); ready: the instance can be used.
	Step   string `json:"step" enums:"probing,reconnecting,waiting,creating,installing,ready"`
	Detail string `json:"detail" example:"Creating an instance at local."`
} //@name RunStartStep

// startCutShort is what a run start cut short by the server shutting down
// says, streamed or not.
const startCutShort = "The server is shutting down: the run did not start. Start it again."

// runStartStream is what a run start sends with Accept: text/event-stream.
var runStartStream = EventStream{
	Events: []StreamEvent{{Name: "step", Data: RunStartStep{}}, {Name: "output", Data: StreamOutput{}},
		{Name: "run", Data: runView{}, Schema: "Run"}, {Name: "error", Data: Problem{}}},
	Ends: []string{"run", "error"},
	Example: "event: step\ndata: {\"step\":\"probing\",\"detail\":\"Checking that Analysis (local) answers.\"}\n\n" +
		"event: step\ndata: {\"step\":\"creating\",\"detail\":\"Creating an instance at local.\"}\n\n" +
		"event: step\ndata: {\"step\":\"installing\",\"detail\":\"Installing pandas.\"}\n\n" +
		"event: output\ndata: {\"text\":\"Collecting pandas\\n\"}\n\n" +
		"event: step\ndata: {\"step\":\"ready\",\"detail\":\"Instance loc-3f2a9c1b0d4e5f60 of Analysis is ready.\"}\n\n" +
		"event: run\ndata: {\"id\":\"…\",\"status\":\"active\",…}\n\n",
}

// startStream starts a run, streaming its steps as they begin and pip's
// output as it is written, and ends with the run or the problem. A failure
// before the first event is an ordinary problem answer. For an
// Idempotency-Key, the answer kept (and given to a retry) is the JSON
// form's: the run, or the problem.
func (h runsHandler) startStream(c echo.Context, agentID string) error {
	stream := &eventStream{c: c}
	progress := run.Progress{
		OnStep: func(step run.Step, detail string) {
			stream.send("step", RunStartStep{Step: string(step), Detail: detail})
		},
		OnOutput: func(text string) { stream.send("output", StreamOutput{Text: text}) },
	}
	stop := stream.heartbeat(heartbeatEvery)
	r, err := h.svc.StartReporting(c.Request().Context(), actor(c).Workspace.ID, agentID, c.Param("thread_id"), progress)
	stop()
	if err != nil {
		err = stream.interrupted(err, startCutShort)
		if stream.streamSent() {
			p := problemOf(err)
			p.Instance = c.Request().URL.Path
			body, _ := p.MarshalJSON()
			keepStreamedAnswer(c, p.Status, "application/problem+json", body)
		}
		return stream.fail(err)
	}
	view := viewRun(r)
	location := "/api/v1/runs/" + r.ID
	body, _ := json.Marshal(view)
	keepStreamedAnswer(c, http.StatusCreated, echo.MIMEApplicationJSON, append(body, '\n'), echo.HeaderLocation, location)
	stream.send("run", view)
	return nil
}
