package validation_test

import (
	"testing"

	"github.com/auxilia/sandboxes/pkg/validation"
	"github.com/stretchr/testify/assert"
)

func TestText(t *testing.T) {
	assert.True(t, validation.Text("naïve/path ok"))
	assert.False(t, validation.Text("a\x00b"), "a NUL")
	assert.False(t, validation.Text("\xff"), "not UTF-8")
}
