package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/secret"
	"github.com/labstack/echo/v4"
)

const headerIdempotencyKey = "Idempotency-Key"

// unfinishedCreate is how long a create keeps its Idempotency-Key while
// it has not answered: far longer than any takes (a run start, which may
// make an instance, has Config.RunStartTimeout instead).
const unfinishedCreate = 5 * time.Minute

// replayedHeaders are the answer's headers worth replaying.
var replayedHeaders = []string{echo.HeaderContentType, echo.HeaderLocation, "ETag"}

// IdempotencyStore keeps the answers to requests made with an Idempotency-Key.
type IdempotencyStore interface {
	Claim(ctx context.Context, tokenID, key, hash string, expired, stale time.Time) (*auxilia.IdempotentRequest, error)
	Complete(ctx context.Context, tokenID, key string, status int, headers map[string]string, body []byte) error
	Release(ctx context.Context, tokenID, key string) error
}

// idempotent makes a create route safe to retry: a request with the same
// Idempotency-Key and body gets the first answer again; the same key with
// another body is a 422; a retry while the first is still running is a 409.
// Keys are scoped to the token and kept for auxilia.IdempotencyTTL. An
// unfinished request keeps its key for staleAfter (the longest the route
// may take): past it, the process that ran it is presumed dead and a retry
// runs again.
func idempotent(store IdempotencyStore, keys *secret.Keyring, staleAfter time.Duration, log *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			key := c.Request().Header.Get(headerIdempotencyKey)
			// A dry run saves nothing, so it is safe to send again as it is;
			// its answer kept under the key would be replayed to the real request.
			if dryRun, _ := boolQuery(c, "dry_run"); key == "" || dryRun {
				return next(c)
			}
			if actor(c).TokenID == "" {
				return auxilia.Errorf(auxilia.CodeMalformed, "Idempotency-Key is kept per API token: send it with a bearer token, not a console session.")
			}
			if len(key) > 255 || !printableASCII(key) {
				return auxilia.Errorf(auxilia.CodeMalformed, "Idempotency-Key must be 1 to 255 printable ASCII characters.")
			}
			body, err := io.ReadAll(c.Request().Body)
			if err != nil {
				return bodyReadError(err)
			}
			c.Request().Body = io.NopCloser(bytes.NewReader(body))

			sum := sha256.New()
			sum.Write([]byte(c.Request().Method + " " + c.Request().URL.Path + "\n"))
			sum.Write(body)
			hash := hex.EncodeToString(sum.Sum(nil))

			ctx := c.Request().Context()
			tokenID := actor(c).TokenID
			now := time.Now()
			prev, err := store.Claim(ctx, tokenID, key, hash, now.Add(-auxilia.IdempotencyTTL), now.Add(-staleAfter))
			if err != nil {
				return err
			}
			if prev != nil {
				return replay(c, keys, prev, tokenID, key, hash)
			}

			rec := &recorder{ResponseWriter: c.Response().Writer}
			c.Response().Writer = rec
			completed := false
			defer func() {
				if !completed { // a panic: let a retry run again
					_ = store.Release(context.WithoutCancel(ctx), tokenID, key)
				}
			}()
			handlerErr := next(c)
			if handlerErr != nil {
				c.Error(handlerErr) // write the problem now, so that it is recorded
			}
			completed = true
			status, body := c.Response().Status, rec.body.Bytes()
			headers := map[string]string{}
			for _, h := range replayedHeaders {
				if v := c.Response().Header().Get(h); v != "" {
					headers[h] = v
				}
			}
			if a, ok := c.Get(streamedAnswerKey).(streamedAnswer); ok {
				status, body, headers = a.status, a.body, a.headers
			}
			if status >= 500 || !c.Response().Committed {
				if err := store.Release(context.WithoutCancel(ctx), tokenID, key); err != nil {
					return err
				}
				return handlerErr
			}
			if err := keep(context.WithoutCancel(ctx), store, keys, tokenID, key, status, headers, body); err != nil {
				log.WarnContext(ctx, "keep idempotent answer", "request_id", requestID(c), "error", err.Error())
			}
			// The answer is written; the error still travels out, for the audit of refusals.
			return handlerErr
		}
	}
}

// streamedAnswerKey holds, in the request's context, the answer a stream
// stands for: what the JSON form would have answered.
const streamedAnswerKey = "auxilia.streamed_answer"

// streamedAnswer is the JSON form of an answer sent as server-sent events.
// A retry with the same Idempotency-Key gets it, as the JSON form would.
type streamedAnswer struct {
	status  int
	headers map[string]string
	body    []byte
}

// keepStreamedAnswer says what a streamed answer stands for, so that it is
// the one kept for the request's Idempotency-Key rather than the stream.
func keepStreamedAnswer(c echo.Context, status int, contentType string, body []byte, headers ...string) {
	a := streamedAnswer{status: status, headers: map[string]string{echo.HeaderContentType: contentType}, body: body}
	for i := 0; i+1 < len(headers); i += 2 {
		a.headers[headers[i]] = headers[i+1]
	}
	c.Set(streamedAnswerKey, a)
}

// keep stores an answer, sealed; one that cannot be sealed is not kept,
// and a retry runs again.
func keep(ctx context.Context, store IdempotencyStore, keys *secret.Keyring, tokenID, key string, status int,
	headers map[string]string, body []byte) error {
	sealed, err := sealAnswer(keys, tokenID, key, body)
	if err != nil {
		return errors.Join(err, store.Release(ctx, tokenID, key))
	}
	return store.Complete(ctx, tokenID, key, status, headers, sealed)
}

func replay(c echo.Context, keys *secret.Keyring, prev *auxilia.IdempotentRequest, tokenID, key, hash string) error {
	switch {
	case prev.RequestHash != hash:
		return auxilia.Errorf(auxilia.CodeIdempotencyReused,
			"This Idempotency-Key was used with another request body; use a new key for a new request.")
	case !prev.Done:
		return auxilia.Errorf(auxilia.CodeInFlight,
			"A request with this Idempotency-Key is still running; retry when it has finished.")
	}
	body, err := openAnswer(keys, tokenID, key, prev.Body)
	if err != nil {
		return err
	}
	for k, v := range prev.Headers {
		c.Response().Header().Set(k, v)
	}
	c.Response().Header().Set("Idempotent-Replayed", "true")
	c.Response().WriteHeader(prev.Status)
	_, err = c.Response().Write(body)
	return err
}

// recorder keeps a copy of what a handler writes.
type recorder struct {
	http.ResponseWriter
	body bytes.Buffer
}

// Unwrap lets a stream flush through the recorder (http.ResponseController).
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (r *recorder) Write(b []byte) (int, error) {
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
