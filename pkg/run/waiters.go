package run

import "sync"

// waiters lets run starts in this process wait for the one creating a
// thread's instance instead of polling the database for it.
type waiters struct {
	mu   sync.Mutex
	done map[string]chan struct{}
}

func newWaiters() *waiters { return &waiters{done: map[string]chan struct{}{}} }

// begin marks instance id as being created here; finish must follow.
func (w *waiters) begin(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done[id] = make(chan struct{})
}

func (w *waiters) finish(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if ch, ok := w.done[id]; ok {
		close(ch)
		delete(w.done, id)
	}
}

// wait returns a channel closed when this process finishes creating id, or
// nil when another process is creating it.
func (w *waiters) wait(id string) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.done[id]
}
