package main

import (
	"net"
	"net/http"
	"sync"
)

// connLimit is a listener that keeps at most its capacity of connections
// open. Past it, a new connection is accepted but waits, unserved, until
// another closes, and the connections kept alive between requests are
// closed to make room: an idle client gives way to a waiting one. While one
// waits, the listener accepts no other, so the rest queue in the kernel.
type connLimit struct {
	net.Listener
	slots chan struct{} // one per open connection
	done  chan struct{} // closed with the listener
	close sync.Once

	mu      sync.Mutex
	idle    map[net.Conn]struct{} // served, waiting for their next request
	waiting bool                  // a new connection waits for room
}

func limitConnections(l net.Listener, capacity int) *connLimit {
	return &connLimit{Listener: l, slots: make(chan struct{}, capacity), done: make(chan struct{}),
		idle: map[net.Conn]struct{}{}}
}

// Accept returns the next connection once there is room for it.
func (l *connLimit) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	select {
	case l.slots <- struct{}{}:
	default:
		l.waitForRoom()
		defer l.roomFound()
		select {
		case l.slots <- struct{}{}:
		case <-l.done:
			c.Close()
			return nil, net.ErrClosed
		}
	}
	return &limitedConn{Conn: c, release: func() { <-l.slots }}, nil
}

// waitForRoom marks that a connection waits for room, and closes an idle
// connection to make some.
func (l *connLimit) waitForRoom() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.waiting = true
	for c := range l.idle {
		delete(l.idle, c)
		c.Close()
		return
	}
}

func (l *connLimit) roomFound() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.waiting = false
}

// ConnState is the server's hook telling which connections are idle. A
// connection going idle while another waits for room is closed at once.
func (l *connLimit) ConnState(c net.Conn, state http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case state == http.StateIdle && l.waiting:
		c.Close()
	case state == http.StateIdle:
		l.idle[c] = struct{}{}
	default:
		delete(l.idle, c)
	}
}

// Close stops accepting, and ends the wait of a connection waiting for room.
func (l *connLimit) Close() error {
	l.close.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitedConn gives its room back when it closes.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
