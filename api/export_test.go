package api

// Waiting is how many shells wait for a connection to take them back: a
// test that drops a connection waits for the server to see it go.
func (t *Terminals) Waiting() int {
	if t.sessions == nil {
		return 0
	}
	t.sessions.mu.Lock()
	defer t.sessions.mu.Unlock()
	n := 0
	for s := range t.sessions.open {
		if !s.attached {
			n++
		}
	}
	return n
}

// BuildVersion is the version the server tells its clients.
func BuildVersion() string { return buildVersion() }
