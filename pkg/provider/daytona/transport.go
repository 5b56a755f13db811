package daytona

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// maxAnswer is the largest answer the client reads whole (a streamed one, as
// a download, is read as it arrives instead).
const maxAnswer = 512 << 20

// request is one call to Daytona. Its body is kept whole so it can be sent again.
type request struct {
	op          string // what we ask, for errors: "create", "read file", …
	method      string
	url         string
	body        []byte
	contentType string
	timeout     time.Duration // for this call; 0 means Waits.Request
	// answerConflict returns a 409 at once instead of retrying it.
	answerConflict bool
	// stream leaves a 200 answer's body unread, for the caller to read as it arrives.
	stream bool
}

// answer is Daytona's answer, read whole, except the body of a streamed
// request's success: the caller reads it from Stream, then closes it.
type answer = provider.Answer

func (c *Client) controlPlane(op, method, path string, body []byte) request {
	r := request{op: op, method: method, url: c.api + path, body: body}
	if body != nil {
		r.contentType = "application/json"
	}
	return r
}

// do sends r, pausing and sending it again while Daytona answers 429 or 409
// "state change in progress", within Waits.Retry. Any other answer, error
// statuses included, is returned for the caller to read; only a failed round
// trip is an error.
func (c *Client) do(ctx context.Context, r request) (answer, error) {
	giveUp := time.Now().Add(c.waits.Retry)
	pauses := c.waits.backoff().Pauses()
	for {
		ans, err := c.caller.Do(ctx, r.call())
		if err != nil {
			return answer{}, err
		}
		var pause time.Duration
		switch {
		case ans.Status == http.StatusTooManyRequests:
			pause = provider.RetryAfter(ans.Header)
			if pause <= 0 {
				pause = pauses.Next()
			}
		case ans.Status == http.StatusConflict && !r.answerConflict && stateChangeInProgress(ans):
			pause = pauses.Next()
		default:
			return ans, nil
		}
		if time.Now().Add(pause).After(giveUp) {
			return ans, nil // the caller reports Daytona's refusal as it stands
		}
		if err := provider.Sleep(ctx, pause); err != nil {
			return answer{}, provider.RoundTripError(ctx, providerName, r.op, err)
		}
	}
}

// call is one sending of r: its body is read afresh each time.
func (r request) call() provider.Call {
	return provider.Call{Op: r.op, Method: r.method, URL: r.url, Body: bytes.NewReader(r.body),
		ContentType: r.contentType, Timeout: r.timeout, Stream: r.stream}
}

// stateChangeInProgress tells Daytona's "try again shortly" 409 from other conflicts.
func stateChangeInProgress(ans answer) bool {
	return strings.Contains(strings.ToLower(messageOf(ans)), "state change in progress")
}
