package run

import (
	"context"
	"io"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// Download is a file of the run's sandbox as bytes, to be read to its end
// and closed by the caller.
type Download struct {
	Path string
	Size int64
	Body io.ReadCloser
}

// Download opens a file of any content for a person to save, under the
// read_file tool's policy (a download is a read). A file larger than limit
// is refused before a byte is sent; one that grows past it while read is
// cut at limit, which the caller sees as a body shorter than Size said.
func (s *Service) Download(ctx context.Context, workspaceID, runID, file string, limit int64, approved bool) (Download, error) {
	if file == "" {
		var fe auxilia.FieldErrors
		fe.Add("path", "is required")
		return Download{}, fe.Err()
	}
	// The call's deadline covers the reading too: it ends when Body is closed.
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	opened := false
	defer func() {
		if !opened {
			cancel()
		}
	}()
	c, err := s.begin(ctx, workspaceID, runID, Call{Tool: "read_file", Input: ReadInput{Path: file}, Approved: approved,
		Args: map[string]any{"path": file}})
	if err != nil {
		return Download{}, err
	}
	p, err := resolve(c, "path", file)
	if err != nil {
		return Download{}, err
	}
	info, err := c.client.Stat(ctx, c.instance, p)
	if err != nil {
		return Download{}, s.fileError(ctx, c, err, p, wantFile)
	}
	var fe auxilia.FieldErrors
	switch {
	case info.Dir:
		fe.Add("path", "%s is a directory: list it with ls", p)
	case info.Size > limit:
		fe.Add("path", "%s is %d bytes, more than the %d a download may be", p, info.Size, limit)
	}
	if err := fe.Err(); err != nil {
		return Download{}, err
	}
	f, err := c.client.OpenFile(ctx, c.instance, p)
	if err != nil {
		return Download{}, s.fileError(ctx, c, err, p, wantFile)
	}
	opened = true
	return Download{Path: p, Size: info.Size, Body: &boundedBody{Reader: io.LimitReader(f, limit), file: f, done: cancel}}, nil
}

// boundedBody reads at most the download's limit and ends its call on Close.
type boundedBody struct {
	io.Reader
	file io.Closer
	done context.CancelFunc
}

func (b *boundedBody) Close() error {
	err := b.file.Close()
	b.done()
	return err
}
