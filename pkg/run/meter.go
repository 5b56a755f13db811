package run

import (
	"context"
	"log/slog"
	"sync"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// meterBatch bounds how many commands one statement meters.
const meterBatch = 256

// commandMeter writes commands' meters off their calls' way: a command's
// answer does not wait for its meter. A call queues the meter and returns;
// one writer, started when there is something to write, sends what is
// queued in one statement a workspace, so that under load many commands
// share a statement and its commit (a group commit), and alone a meter is
// written at once. Flush waits for what was queued before it: the usage
// report flushes before it reads, and the server before it stops, so a
// graceful stop loses nothing; a crash loses only the meters still queued,
// the last moment's commands.
type commandMeter struct {
	write func(ctx context.Context, workspaceID string, uses []auxilia.CommandUse) error

	mu      sync.Mutex
	written *sync.Cond // broadcast when done grows
	queue   map[string][]auxilia.CommandUse
	queued  uint64 // meters queued ever
	done    uint64 // of them, meters written (or given up)
	writing bool
}

func newCommandMeter(write func(ctx context.Context, workspaceID string, uses []auxilia.CommandUse) error) *commandMeter {
	m := &commandMeter{write: write, queue: map[string][]auxilia.CommandUse{}}
	m.written = sync.NewCond(&m.mu)
	return m
}

// add queues a command's meter.
func (m *commandMeter) add(workspaceID string, u auxilia.CommandUse) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.queue[workspaceID] = append(m.queue[workspaceID], u)
	m.queued++
	if !m.writing {
		m.writing = true
		go m.drain()
	}
}

// drain writes what is queued until nothing is.
func (m *commandMeter) drain() {
	for {
		m.mu.Lock()
		if len(m.queue) == 0 {
			m.writing = false
			m.mu.Unlock()
			return
		}
		queue := m.queue
		m.queue = map[string][]auxilia.CommandUse{}
		m.mu.Unlock()

		n := 0
		for ws, uses := range queue {
			for len(uses) > 0 {
				batch := uses[:min(len(uses), meterBatch)]
				uses = uses[len(batch):]
				// The command ran: a meter that could not be written is
				// logged, never answered as the command's failure.
				if err := m.write(context.Background(), ws, batch); err != nil {
					slog.Error("metering commands failed", "workspace_id", ws, "commands", len(batch), "error", err)
				}
				n += len(batch)
			}
		}
		m.mu.Lock()
		m.done += uint64(n)
		m.written.Broadcast()
		m.mu.Unlock()
	}
}

// flush waits until every meter queued before it is written, or ctx ends.
func (m *commandMeter) flush(ctx context.Context) error {
	m.mu.Lock()
	target := m.queued
	if m.done >= target {
		m.mu.Unlock()
		return nil
	}
	stop := context.AfterFunc(ctx, func() {
		m.mu.Lock()
		m.written.Broadcast()
		m.mu.Unlock()
	})
	defer stop()
	for m.done < target && ctx.Err() == nil {
		m.written.Wait()
	}
	m.mu.Unlock()
	return ctx.Err()
}
