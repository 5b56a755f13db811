package local

import (
	"unicode/utf8"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// stream passes one output stream of a command to the shared collector,
// holding back a character split between two writes.
type stream struct {
	out     *provider.Output
	name    string
	pending []byte
}

func (s *stream) Write(p []byte) (int, error) {
	data := append(s.pending, p...)
	cut := len(data)
	for i := len(data) - 1; i >= 0 && i >= len(data)-utf8.UTFMax; i-- {
		if utf8.RuneStart(data[i]) {
			if !utf8.FullRune(data[i:]) {
				cut = i
			}
			break
		}
	}
	s.out.Write(s.name, string(data[:cut]))
	s.pending = append([]byte(nil), data[cut:]...)
	return len(p), nil
}

// flush passes on what was held back, once the command is over.
func (s *stream) flush() {
	s.out.Write(s.name, string(s.pending))
	s.pending = nil
}
