package main

import (
	"net/http"
	"time"
)

// withWriteDeadlines gives each write of an answer, and each flush, its
// own deadline of timeout, instead of the server's one deadline for the
// whole answer counted from the request: a client must take each part in
// time, but the handler may run for as long as its work needs (a command
// its whole timeout, an event stream as long as its command).
func withWriteDeadlines(next http.Handler, timeout time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dw := &deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: timeout}
		next.ServeHTTP(dw, r)
		dw.extend() // for what the server writes once the handler is done
	})
}

// deadlineWriter sets the write deadline before each write and flush.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (w *deadlineWriter) extend() { _ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout)) }

func (w *deadlineWriter) Write(p []byte) (int, error) {
	w.extend()
	return w.ResponseWriter.Write(p)
}

// FlushError flushes what is buffered, within the write deadline.
func (w *deadlineWriter) FlushError() error {
	w.extend()
	return w.rc.Flush()
}

// Unwrap lets http.ResponseController reach the server's writer.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
