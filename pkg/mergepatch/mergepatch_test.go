package mergepatch

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The examples of RFC 7396, appendix A.
func TestRFC7396Examples(t *testing.T) {
	cases := []struct{ doc, patch, want string }{
		{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{`{"a":"b"}`, `{"a":null}`, `{}`},
		{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{`["a","b"]`, `["c","d"]`, `["c","d"]`},
		{`{"a":"b"}`, `["c"]`, `["c"]`},
		{`{"a":"foo"}`, `null`, `null`},
		{`{"a":"foo"}`, `"bar"`, `"bar"`},
		{`{"e":null}`, `{"a":1}`, `{"a":1,"e":null}`},
		{`[1,2]`, `{"a":"b","c":null}`, `{"a":"b"}`},
		{`{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
		{``, `{"a":1}`, `{"a":1}`},
	}
	for _, c := range cases {
		got, err := Apply(json.RawMessage(c.doc), json.RawMessage(c.patch))
		require.NoError(t, err, "%s + %s", c.doc, c.patch)
		assert.JSONEq(t, c.want, string(got), "%s + %s", c.doc, c.patch)
	}
}

func TestNumbersKeepTheirText(t *testing.T) {
	got, err := Apply(json.RawMessage(`{"big":12345678901234567890}`), json.RawMessage(`{"x":1.50}`))
	require.NoError(t, err)
	assert.Equal(t, `{"big":12345678901234567890,"x":1.50}`, string(got))
}

func TestObject(t *testing.T) {
	_, err := Object(json.RawMessage(`[1]`))
	assert.Error(t, err)
	_, err = Object(json.RawMessage(`null`))
	assert.Error(t, err)
	m, err := Object(json.RawMessage(`{"a":null}`))
	require.NoError(t, err)
	assert.Equal(t, "null", string(m["a"]))
}
