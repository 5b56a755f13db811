package daytonatest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/coder/websocket"
)

// Following a log: the daemon reads it in chunks of up to 1024 bytes and,
// at its end, looks again every 20ms; after 50 looks in a row that find
// nothing new it checks the exit-code file, and ends the stream once the
// command has one (ReadLogWithExitCode in Daytona's
// apps/daemon/internal/util/log_reader.go).
const (
	logChunk        = 1024
	logLookInterval = 20 * time.Millisecond
	logLooksPerExit = 50
)

// sessionCommandLogs answers a command's log: over a WebSocket, each chunk
// as a binary message, to the end of what is written or, with
// ?follow=true, until the command has ended, then a normal close; without
// the upgrade, the log so far as text. Both without the stream prefixes for
// a caller that wants the output combined (GetSessionCommandLogs in
// apps/daemon/pkg/toolbox/process/session/log.go and
// apps/daemon/pkg/session/log.go).
func (s *Server) sessionCommandLogs(w http.ResponseWriter, r *http.Request, box sandboxBox, sessionID, cmdID string) {
	ss, _, ok := s.sessionCommand(w, r, box, sessionID, cmdID)
	if !ok {
		return
	}
	logPath := filepath.Join(ss.commandDir(cmdID), "output.log")
	combined := combinedOutput(r)
	if r.Header.Get("Upgrade") != "websocket" {
		raw, err := os.ReadFile(logPath)
		if err != nil {
			toolboxError(w, r, r.URL.Path, http.StatusNotFound, "not found: "+err.Error())
			return
		}
		if combined {
			raw = stripPrefixes(raw)
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write(raw)
		return
	}
	logFile, err := os.Open(logPath)
	if err != nil {
		toolboxError(w, r, r.URL.Path, http.StatusNotFound, "not found: "+err.Error())
		return
	}
	defer logFile.Close()
	conn, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer conn.CloseNow()
	// The stream ends with the session, the caller's going, or the fake's close.
	ctx, cancel := context.WithCancel(ss.ctx)
	defer cancel()
	ctx = conn.CloseRead(ctx)
	follow := r.URL.Query().Get("follow") == "true"
	var held []byte // the start of a prefix cut by a chunk's end
	looks := 0
	for {
		chunk := make([]byte, logChunk)
		n, err := logFile.Read(chunk)
		if n > 0 {
			looks = 0
			data := chunk[:n]
			if combined {
				data, held = filterPrefixes(append(held, data...))
			}
			if len(data) > 0 && conn.Write(ctx, websocket.MessageBinary, data) != nil {
				return
			}
			continue
		}
		if err != nil && err != io.EOF {
			conn.Close(websocket.StatusInternalError, "")
			return
		}
		if !follow {
			break
		}
		if looks++; looks >= logLooksPerExit {
			if ss.exitCode(cmdID) != nil {
				break
			}
			looks = 0
		}
		select {
		case <-ctx.Done():
			if ss.ctx.Err() != nil { // the session was deleted: the daemon closes normally
				_ = conn.Close(websocket.StatusNormalClosure, "")
			}
			return
		case <-time.After(logLookInterval):
		}
	}
	if len(held) > 0 {
		_ = conn.Write(ctx, websocket.MessageBinary, held)
	}
	_ = conn.Close(websocket.StatusNormalClosure, "")
}

// filterPrefixes takes the stream prefixes out of data, holding back the
// bytes at its end that may begin one (processLogChunkWithPrefixFiltering
// in apps/daemon/pkg/session/log.go).
func filterPrefixes(data []byte) (out, held []byte) {
	for i := 0; i < len(data); {
		rest := data[i:]
		if len(rest) < len(stdoutPrefix) {
			if prefixOf(rest, stdoutPrefix) || prefixOf(rest, stderrPrefix) {
				return out, append([]byte(nil), rest...)
			}
			return append(out, rest...), nil
		}
		if bytes.HasPrefix(rest, stdoutPrefix) || bytes.HasPrefix(rest, stderrPrefix) {
			i += len(stdoutPrefix)
			continue
		}
		out = append(out, data[i])
		i++
	}
	return out, nil
}

// prefixOf reports whether b is how whole begins.
func prefixOf(b, whole []byte) bool { return bytes.HasPrefix(whole, b) }
