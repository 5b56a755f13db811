package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func tool(t *testing.T, name string) run.Tool {
	t.Helper()
	tl, ok := run.LookupTool(name)
	require.True(t, ok)
	return tl
}

func TestArgumentsDecodeAsTheInputSchemaStatesThem(t *testing.T) {
	in, err := decodeArgs(json.RawMessage(`{"path":"a.txt","content":"héllo\n"}`), tool(t, "write_file"))
	require.NoError(t, err)
	assert.Equal(t, &run.WriteInput{Path: "a.txt", Content: []byte("héllo\n")}, in, "a file's content is text, not base64")

	in, err = decodeArgs(json.RawMessage(`{"path":"a.txt"}`), tool(t, "read_file"))
	require.NoError(t, err)
	assert.Equal(t, &run.ReadInput{Path: "a.txt", Offset: 0, Limit: 2000}, in, "absent numbers take their defaults")

	in, err = decodeArgs(nil, tool(t, "ls"))
	require.NoError(t, err)
	assert.Equal(t, &run.ListInput{}, in, "a tool whose arguments are all optional may be called with none")

	in, err = decodeArgs(json.RawMessage(`{"path":"a","old_string":"x","new_string":"y","replace_all":true}`), tool(t, "edit_file"))
	require.NoError(t, err)
	assert.Equal(t, &run.EditInput{Path: "a", OldString: "x", NewString: "y", ReplaceAll: true}, in)
}

func TestEveryBadArgumentIsNamed(t *testing.T) {
	_, err := decodeArgs(json.RawMessage(`{"offset":"ten","limit":0,"colour":"red","Approved":true}`), tool(t, "read_file"))
	var e *auxilia.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, auxilia.CodeInvalid, e.Code)
	assert.Equal(t, []auxilia.FieldError{
		{Field: "path", Message: "is required"},
		{Field: "offset", Message: "must be a whole number"},
		{Field: "limit", Message: "must be from 1 to 20000"},
		{Field: "Approved", Message: "is not an argument of read_file"},
		{Field: "colour", Message: "is not an argument of read_file"},
	}, []auxilia.FieldError(e.Fields), "an approval cannot be smuggled in as an argument")

	_, err = decodeArgs(json.RawMessage(`["ls"]`), tool(t, "ls"))
	require.ErrorAs(t, err, &e)
	assert.Equal(t, []auxilia.FieldError{{Field: "arguments", Message: "must be an object"}}, []auxilia.FieldError(e.Fields))
}
