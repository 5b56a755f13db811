package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// GCS is a SnapshotStore on the Cloud Storage JSON API.
type GCS struct {
	Endpoint string // DefaultGCSEndpoint, or a fake's URL
	HTTP     *http.Client
	Tokens   TokenSource
}

// gcsAttempts is how often a call is tried when Cloud Storage answers 429 or 5xx, as Google advises.
const gcsAttempts = 3

// Put uploads the object in one media request.
func (g *GCS) Put(ctx context.Context, bucket, object string, body io.ReadSeeker, size int64) (ObjectInfo, error) {
	u := fmt.Sprintf("%s/upload/storage/v1/b/%s/o?uploadType=media&name=%s",
		g.Endpoint, url.PathEscape(bucket), url.QueryEscape(object))
	resp, err := g.send(ctx, http.MethodPost, u, body, size)
	if err != nil {
		return ObjectInfo{}, err
	}
	defer resp.Body.Close()
	var obj gcsObject
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&obj); err != nil {
		return ObjectInfo{}, fmt.Errorf("cloud storage answered an unreadable object: %w", err)
	}
	return obj.info(), nil
}

// Get downloads the object's bytes.
func (g *GCS) Get(ctx context.Context, bucket, object string) (io.ReadCloser, ObjectInfo, error) {
	resp, err := g.send(ctx, http.MethodGet, g.objectURL(bucket, object)+"?alt=media", nil, 0)
	if err != nil {
		return nil, ObjectInfo{}, err
	}
	info := ObjectInfo{Bucket: bucket, Name: object, Size: resp.ContentLength,
		Generation: resp.Header.Get("X-Goog-Generation")}
	return resp.Body, info, nil
}

// Delete removes the object.
func (g *GCS) Delete(ctx context.Context, bucket, object string) error {
	resp, err := g.send(ctx, http.MethodDelete, g.objectURL(bucket, object), nil, 0)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// objectURL escapes the object name as one path segment, as the JSON API requires ("/" as %2F).
func (g *GCS) objectURL(bucket, object string) string {
	return fmt.Sprintf("%s/storage/v1/b/%s/o/%s", g.Endpoint, url.PathEscape(bucket), url.PathEscape(object))
}

// send makes a call with the service identity's token, retrying what
// Cloud Storage calls transient, and turns error answers into errors.
func (g *GCS) send(ctx context.Context, method, u string, body io.ReadSeeker, size int64) (*http.Response, error) {
	var err error
	for attempt := 1; ; attempt++ {
		var resp *http.Response
		resp, err = g.try(ctx, method, u, body, size)
		var te *transientError
		if !errors.As(err, &te) || attempt == gcsAttempts {
			return resp, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(time.Duration(attempt) * 500 * time.Millisecond):
		}
		if body != nil {
			if _, serr := body.Seek(0, io.SeekStart); serr != nil {
				return nil, err
			}
		}
	}
}

// transientError is a failure worth another try.
type transientError struct{ err error }

func (e *transientError) Error() string { return e.err.Error() }
func (e *transientError) Unwrap() error { return e.err }

func (g *GCS) try(ctx context.Context, method, u string, body io.ReadSeeker, size int64) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = io.NopCloser(body) // the caller owns the file; the transport must not close it
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.ContentLength = size
		req.Header.Set("Content-Type", "application/x-tar")
	}
	if g.Tokens != nil {
		tok, err := g.Tokens.Token(ctx)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrStorageDenied, err)
		}
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
	}
	client := g.HTTP
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("cloud storage: %w", err)
		}
		return nil, &transientError{fmt.Errorf("cloud storage: %w", err)}
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	msg := gcsMessage(resp)
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, fmt.Errorf("%w: %s", ErrObjectNotFound, msg)
	case resp.StatusCode == http.StatusUnauthorized, resp.StatusCode == http.StatusForbidden:
		return nil, fmt.Errorf("%w: %s", ErrStorageDenied, msg)
	case resp.StatusCode == http.StatusTooManyRequests, resp.StatusCode >= 500:
		return nil, &transientError{fmt.Errorf("cloud storage answered %d: %s", resp.StatusCode, msg)}
	default:
		return nil, fmt.Errorf("cloud storage answered %d: %s", resp.StatusCode, msg)
	}
}

// gcsMessage reads the JSON API's error document: {"error":{"code","message","errors":[…]}}.
func gcsMessage(resp *http.Response) string {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var doc struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &doc) == nil && doc.Error.Message != "" {
		return doc.Error.Message
	}
	if s := strings.TrimSpace(string(body)); s != "" && len(s) < 300 {
		return s
	}
	return resp.Status
}

// gcsObject is the JSON API's object resource, as much as the gateway reads.
type gcsObject struct {
	Bucket     string `json:"bucket"`
	Name       string `json:"name"`
	Size       string `json:"size"` // int64 as a string, as the JSON API writes it
	Generation string `json:"generation"`
}

func (o gcsObject) info() ObjectInfo {
	size, _ := strconv.ParseInt(o.Size, 10, 64)
	return ObjectInfo{Bucket: o.Bucket, Name: o.Name, Size: size, Generation: o.Generation}
}
