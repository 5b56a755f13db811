package gateway

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"regexp"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/gateway/wire"
)

// maxIDLength bounds sandbox ids: they become folder and object names.
const maxIDLength = 64

var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// checkID refuses ids that could not safely name a folder or an object.
func checkID(id string) error {
	if len(id) > maxIDLength || !idPattern.MatchString(id) {
		return failure(http.StatusBadRequest, auxilia.CodeMalformed,
			"sandbox ids are 1-64 characters of letters, digits, '_' and '-', starting with a letter or digit").about(wire.SubjectSandbox)
	}
	return nil
}

// newID returns "sbx-" and 12 random hex digits.
func newID() string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return "sbx-" + hex.EncodeToString(b[:])
}
