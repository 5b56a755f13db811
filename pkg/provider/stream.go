package provider

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// NewStream wraps what a client reads a file from (an answer's body, a
// host file): a failure while reading goes through fail, which words it as
// a provider error, and Close also calls end, when set, to end the call.
func NewStream(r io.ReadCloser, fail func(error) error, end func()) io.ReadCloser {
	return &stream{r: r, fail: fail, end: end}
}

type stream struct {
	r    io.ReadCloser
	fail func(error) error
	end  func()
}

func (s *stream) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		err = s.fail(err)
	}
	return n, err
}

func (s *stream) Close() error {
	err := s.r.Close()
	if s.end != nil {
		s.end()
	}
	return err
}

// DecodeArray decodes the first limit elements of the JSON array r holds,
// or of the array at key when r holds an object, and reads no further: a
// long listing costs no more than the elements kept. A null array is empty.
func DecodeArray[T any](r io.Reader, key string, limit int) ([]T, error) {
	dec := json.NewDecoder(r)
	if key != "" {
		if err := findField(dec, key); err != nil {
			return nil, err
		}
	}
	items := []T{}
	tok, err := dec.Token()
	switch {
	case err != nil:
		return nil, err
	case tok == nil:
		return items, nil
	case tok != json.Delim('['):
		return nil, fmt.Errorf("%v where a list was expected", tok)
	}
	for len(items) < limit && dec.More() {
		var item T
		if err := dec.Decode(&item); err != nil {
			return nil, err
		}
		items = append(items, item)
	}
	return items, nil
}

// findField reads an object up to the value of key.
func findField(dec *json.Decoder, key string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != json.Delim('{') {
		return fmt.Errorf("%v where an object was expected", tok)
	}
	for dec.More() {
		name, err := dec.Token()
		if err != nil {
			return err
		}
		if name == key {
			return nil
		}
		var skipped json.RawMessage
		if err := dec.Decode(&skipped); err != nil {
			return err
		}
	}
	return fmt.Errorf("the answer has no %q", key)
}
