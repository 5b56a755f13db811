package bubblewrap

import (
	"os"
	"sync"
)

// plumbing is the pipes bwrap is given, as descriptors 3, 4, … in order.
type plumbing struct {
	ours   []*os.File // our ends
	theirs []*os.File // bwrap's ends
	feeds  []feed
}

// feed is what we write into a pipe for bwrap to read.
type feed struct {
	w       *os.File
	content string
}

// from returns a pipe bwrap writes to: our end and bwrap's descriptor.
func (p *plumbing) from() (*os.File, int, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, 0, err
	}
	p.ours = append(p.ours, r)
	p.theirs = append(p.theirs, w)
	return r, 2 + len(p.theirs), nil
}

// to returns a pipe bwrap reads from: our end and bwrap's descriptor.
func (p *plumbing) to() (*os.File, int, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, 0, err
	}
	p.ours = append(p.ours, w)
	p.theirs = append(p.theirs, r)
	return w, 2 + len(p.theirs), nil
}

// give passes an open file on to bwrap, and returns its descriptor there.
func (p *plumbing) give(f *os.File) int {
	p.theirs = append(p.theirs, f)
	return 2 + len(p.theirs)
}

// feed returns the descriptor at which bwrap reads content.
func (p *plumbing) feed(content string) (int, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	p.feeds = append(p.feeds, feed{w, content})
	p.theirs = append(p.theirs, r)
	return 2 + len(p.theirs), nil
}

// startFeeding writes every feed while bwrap reads, and returns a function
// that waits until they are written (or bwrap is gone and cannot read them).
func (p *plumbing) startFeeding() (wait func()) {
	var wg sync.WaitGroup
	for _, f := range p.feeds {
		wg.Go(func() {
			_, _ = f.w.WriteString(f.content)
			_ = f.w.Close()
		})
	}
	p.feeds = nil
	return wg.Wait
}

// closeTheirs closes bwrap's ends once bwrap has its copies.
func (p *plumbing) closeTheirs() {
	closeAll(p.theirs)
	p.theirs = nil
}

// close closes every pipe, when bwrap could not be started.
func (p *plumbing) close() {
	p.closeTheirs()
	closeAll(p.ours)
	for _, f := range p.feeds {
		_ = f.w.Close()
	}
}

func closeAll(files []*os.File) {
	for _, f := range files {
		if f != nil {
			_ = f.Close()
		}
	}
}
