package api

import (
	"bytes"
	"encoding/json"
	"sort"
)

// marshalWithExtra encodes v (a struct) and adds the members of extra that v
// does not already have.
func marshalWithExtra(v any, extra map[string]any) ([]byte, error) {
	base, err := json.Marshal(v)
	if err != nil || len(extra) == 0 {
		return base, err
	}
	var fixed map[string]json.RawMessage
	if err := json.Unmarshal(base, &fixed); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Write(bytes.TrimSuffix(base, []byte("}")))
	keys := make([]string, 0, len(extra))
	for k := range extra {
		if _, taken := fixed[k]; !taken {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		val := extra[k]
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(val)
		if err != nil {
			return nil, err
		}
		buf.WriteByte(',')
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(vb)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
