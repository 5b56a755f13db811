package api

import (
	"encoding/base64"
	"strconv"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
)

// pageRequest reads ?page_size= (1–200, default 50) and ?page_token=.
func pageRequest(c echo.Context) (auxilia.PageRequest, error) {
	req := auxilia.PageRequest{Size: auxilia.DefaultPageSize}
	var fe auxilia.FieldErrors
	if s := c.QueryParam("page_size"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > auxilia.MaxPageSize {
			fe.Add("page_size", "must be a whole number from 1 to %d", auxilia.MaxPageSize)
		} else {
			req.Size = n
		}
	}
	if t := c.QueryParam("page_token"); t != "" {
		after, err := decodePageToken(t)
		if err != nil {
			fe.Add("page_token", "is not a token this API gave out")
		}
		req.After = after
	}
	return req, fe.Err()
}

// Page tokens are opaque to clients: the id to continue after, encoded.
func encodePageToken(after string) string {
	if after == "" {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString([]byte(after))
}

func decodePageToken(token string) (string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return "", err
	}
	id, err := uuid.ParseBytes(raw)
	if err != nil {
		return "", err
	}
	return id.String(), nil
}

// list is the shape of every list answer.
type list[T any] struct {
	Items         []T    `json:"items"`
	NextPageToken string `json:"next_page_token"`
}

// listOf converts a page of domain values for the wire.
func listOf[D any, T any](page auxilia.Page[D], conv func(D) T) list[T] {
	out := list[T]{Items: make([]T, len(page.Items)), NextPageToken: encodePageToken(page.Next)}
	for i, d := range page.Items {
		out.Items[i] = conv(d)
	}
	return out
}
