package opensandbox_test

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider/opensandbox"
)

// commandStream is a command printing lines of output, framed as execd
// frames it (bare JSON objects, each followed by a blank line) or as a proxy
// re-framing it as server-sent events ("data: " lines).
func commandStream(lines int, sse bool) string {
	var sb strings.Builder
	event := func(json string) {
		if sse {
			sb.WriteString("data: ")
		}
		sb.WriteString(json)
		sb.WriteString("\n\n")
	}
	event(`{"type":"init","text":"3d616ad4c1664d64ac4534e93929752e","timestamp":1795956188523}`)
	for i := range lines {
		event(fmt.Sprintf(`{"type":"stdout","text":"epoch %4d  loss=0.%06d  acc=0.%04d  lr=3e-4  elapsed=%ds","timestamp":%d}`,
			i, 999999-i, i%10000, i/10, 1795956189561+int64(i)))
	}
	event(`{"type":"execution_complete","execution_time":1234,"timestamp":1795956199561}`)
	return sb.String()
}

// BenchmarkEventReader reads a 1,000-line command's output stream to its end.
func BenchmarkEventReader(b *testing.B) {
	for _, framing := range []struct {
		name string
		sse  bool
	}{{"execd", false}, {"sse", true}} {
		stream := commandStream(1000, framing.sse)
		b.Run(framing.name, func(b *testing.B) {
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			for b.Loop() {
				events := opensandbox.NewEventReader(strings.NewReader(stream))
				n := 0
				for {
					_, err := events.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					n++
				}
				if n != 1002 {
					b.Fatalf("read %d events, want 1002", n)
				}
			}
		})
	}
}
