package daytona

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
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
// request's 200: the caller reads it from stream, then closes it.
type answer struct {
	status int
	header http.Header
	body   []byte
	stream io.ReadCloser
}

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
	pauses := c.waits.backoff()
	for {
		ans, err := c.roundTrip(ctx, r)
		if err != nil {
			return answer{}, err
		}
		var pause time.Duration
		switch {
		case ans.status == http.StatusTooManyRequests:
			pause = retryAfter(ans.header)
			if pause <= 0 {
				pause = pauses.pause()
			}
		case ans.status == http.StatusConflict && !r.answerConflict && stateChangeInProgress(ans):
			pause = pauses.pause()
		default:
			return ans, nil
		}
		if time.Now().Add(pause).After(giveUp) {
			return ans, nil // the caller reports Daytona's refusal as it stands
		}
		if err := sleep(ctx, pause); err != nil {
			return answer{}, transportError(ctx, r.op, err)
		}
	}
}

func (c *Client) roundTrip(ctx context.Context, r request) (answer, error) {
	timeout := r.timeout
	if timeout <= 0 {
		timeout = c.waits.Request
	}
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	req, err := http.NewRequestWithContext(callCtx, r.method, r.url, bytes.NewReader(r.body))
	if err != nil {
		cancel()
		return answer{}, failure(provider.ErrInvalidConfig, r.op, "%s", err)
	}
	req.Header.Set("Authorization", "Bearer "+c.apiKey)
	req.Header.Set("Accept", "application/json")
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		cancel()
		return answer{}, transportError(ctx, r.op, err)
	}
	if r.stream && resp.StatusCode == http.StatusOK {
		fail := func(err error) error { return transportError(ctx, r.op, err) }
		return answer{status: resp.StatusCode, header: resp.Header, stream: provider.NewStream(resp.Body, fail, cancel)}, nil
	}
	defer cancel()
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return answer{}, transportError(ctx, r.op, err)
	}
	if len(body) > maxAnswer {
		return answer{}, failure(provider.ErrFailed, r.op, "the answer is larger than %d MiB", maxAnswer>>20)
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: body}, nil
}

// transportError sorts a failed round trip: no answer in time, or none at all.
func transportError(ctx context.Context, op string, err error) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return fmt.Errorf("%s %s: %w", providerName, op, context.Canceled)
	}
	var timeout interface{ Timeout() bool }
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &timeout) && timeout.Timeout()) {
		return failure(provider.ErrTimeout, op, "%s", plainError(err))
	}
	return failure(provider.ErrUnreachable, op, "%s", plainError(err))
}

// plainError drops the method and URL that net/http puts before the cause.
func plainError(err error) string {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return urlErr.Err.Error()
	}
	return err.Error()
}

// sleep pauses for d, or less if ctx ends first.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
