package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNULFields(t *testing.T) {
	tests := []struct {
		body string
		want []string
	}{
		{`{"name":"plain"}`, nil},
		{`{"name":"a\\u0000b"}`, nil}, // an escaped backslash, then the text u0000
		{`{"name":"a\u0000b"}`, []string{"name"}},
		{`{"name":"a\\\u0000b"}`, []string{"name"}},
		{`{"config":{"mounts":["/a","/b\u0000"]},"tools":{"k\u0000":"x"}}`, []string{"config.mounts.1", "tools"}},
		{`{"name":"a\u0000`, nil}, // not JSON: its decoding says so
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, nulFields([]byte(tt.body)), tt.body)
	}
}
