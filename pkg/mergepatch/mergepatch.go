// Package mergepatch applies JSON merge patches (RFC 7396): members absent
// from the patch are unchanged, null removes a member, objects merge
// recursively, and any other value replaces the target's.
package mergepatch

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Apply returns doc with patch applied. Numbers keep their exact text.
func Apply(doc, patch json.RawMessage) (json.RawMessage, error) {
	var target, p any
	if len(bytes.TrimSpace(doc)) > 0 {
		if err := decode(doc, &target); err != nil {
			return nil, err
		}
	}
	if err := decode(patch, &p); err != nil {
		return nil, err
	}
	return json.Marshal(merge(target, p))
}

// Object decodes a patch that must be a JSON object.
func Object(patch json.RawMessage) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(patch, &m); err != nil || m == nil {
		return nil, errors.New("a merge patch here must be a JSON object")
	}
	return m, nil
}

func merge(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
			continue
		}
		t[k] = merge(t[k], v)
	}
	return t
}

func decode(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}
