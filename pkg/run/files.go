package run

import (
	"context"
	"errors"
	"path"
	"strings"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/validation"
)

// Defaults and bounds of read_file, in lines.
const (
	DefaultReadLimit = 2000
	MaxReadLimit     = 20000
)

// List lists a directory of the run's instance (its working directory when dir is empty).
func (s *Service) List(ctx context.Context, workspaceID, runID, dir string, approved bool) ([]provider.FileInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	c, err := s.begin(ctx, workspaceID, runID, Call{Tool: "ls", Approved: approved, Args: map[string]any{"path": dir}})
	if err != nil {
		return nil, err
	}
	p, err := resolve(c, "path", dir)
	if err != nil {
		return nil, err
	}
	entries, err := c.client.ListFiles(ctx, c.instance, p)
	return entries, s.fileError(ctx, c, err, p, wantDirectory)
}

// Text is a window of a text file's lines.
type Text struct {
	Path       string
	Content    string
	Offset     int
	Lines      int
	TotalLines int
}

// CheckWindow adds the errors of a read_file window, offset and limit,
// to fe, skipping a field fe already names.
func CheckWindow(fe *auxilia.FieldErrors, offset, limit int) {
	if offset < 0 && !fe.Has("offset") {
		fe.Add("offset", "must be 0 or more")
	}
	if (limit < 1 || limit > MaxReadLimit) && !fe.Has("limit") {
		fe.Add("limit", "must be from 1 to %d", MaxReadLimit)
	}
}

// Read returns up to limit lines of a text file from line offset (0-based).
func (s *Service) Read(ctx context.Context, workspaceID, runID, file string, offset, limit int, approved bool) (Text, error) {
	var fe auxilia.FieldErrors
	if file == "" {
		fe.Add("path", "is required")
	}
	CheckWindow(&fe, offset, limit)
	if err := fe.Err(); err != nil {
		return Text{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	c, err := s.begin(ctx, workspaceID, runID, Call{Tool: "read_file", Approved: approved, Args: map[string]any{"path": file}})
	if err != nil {
		return Text{}, err
	}
	p, err := resolve(c, "path", file)
	if err != nil {
		return Text{}, err
	}
	data, err := c.client.ReadFile(ctx, c.instance, p)
	if err != nil {
		return Text{}, s.fileError(ctx, c, err, p, wantFile)
	}
	if err := requireText(data); err != nil {
		return Text{}, err
	}
	lines := splitLines(string(data))
	out := Text{Path: p, Offset: offset, TotalLines: len(lines)}
	if offset < len(lines) {
		window := lines[offset:min(len(lines), offset+limit)]
		out.Content, out.Lines = strings.Join(window, ""), len(window)
	}
	return out, nil
}

// splitLines cuts text after each newline, keeping them.
func splitLines(text string) []string {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// Write creates a file (and its parent directories); an existing file is not overwritten.
func (s *Service) Write(ctx context.Context, workspaceID, runID, file string, data []byte, approved bool) (string, error) {
	if file == "" {
		var fe auxilia.FieldErrors
		fe.Add("path", "is required")
		return "", fe.Err()
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	c, err := s.begin(ctx, workspaceID, runID, Call{Tool: "write_file", Approved: approved,
		Args: map[string]any{"path": file, "bytes": len(data)}})
	if err != nil {
		return "", err
	}
	p, err := resolve(c, "path", file)
	if err != nil {
		return "", err
	}
	_, err = c.client.Stat(ctx, c.instance, p)
	switch {
	case err == nil:
		return "", auxilia.Errorf(auxilia.CodeFileExists, "%s already exists: edit it instead.", p).With("path", p)
	case !errors.Is(err, provider.ErrNotFound):
		return "", s.fileError(ctx, c, err, p, wantFile)
	}
	if err := c.client.WriteFile(ctx, c.instance, p, data); err != nil {
		return "", s.fileError(ctx, c, err, p, wantFile)
	}
	return p, nil
}

// Edit replaces old with new in a text file: exactly once unless all is set.
func (s *Service) Edit(ctx context.Context, workspaceID, runID, file, old, replacement string, all, approved bool) (int, error) {
	var fe auxilia.FieldErrors
	if file == "" {
		fe.Add("path", "is required")
	}
	if old == "" {
		fe.Add("old_string", "is required")
	} else if old == replacement {
		fe.Add("new_string", "must differ from old_string")
	}
	if err := fe.Err(); err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	c, err := s.begin(ctx, workspaceID, runID, Call{Tool: "edit_file", Approved: approved, Args: map[string]any{"path": file}})
	if err != nil {
		return 0, err
	}
	p, err := resolve(c, "path", file)
	if err != nil {
		return 0, err
	}
	data, err := c.client.ReadFile(ctx, c.instance, p)
	if err != nil {
		return 0, s.fileError(ctx, c, err, p, wantFile)
	}
	if err := requireText(data); err != nil {
		return 0, err
	}
	text := string(data)
	n := strings.Count(text, old)
	switch {
	case n == 0:
		fe.Add("old_string", "was not found in %s", p)
	case n > 1 && !all:
		fe.Add("old_string", "appears %d times in %s: add context to make it unique, or set replace_all", n, p)
	}
	if err := fe.Err(); err != nil {
		return 0, err
	}
	if !all {
		n = 1
	}
	edited := strings.Replace(text, old, replacement, n)
	return n, s.providerError(c, c.client.WriteFile(ctx, c.instance, p, []byte(edited)))
}

// requireText refuses binary files in the text tools.
func requireText(data []byte) error {
	if validation.Text(string(data)) {
		return nil
	}
	var fe auxilia.FieldErrors
	fe.Add("path", "is a binary file: inspect it with execute")
	return fe.Err()
}

// The kind of path a file tool needs.
const (
	wantFile      = false
	wantDirectory = true
)

// fileError words a failed file call. A missing path is the caller's
// mistake (404), and so are a path the provider refuses (one leading out
// of the sandbox's files) and a path of the wrong kind (422): a directory
// where a file is wanted, a file where a directory is, or a file among its
// parents. That is looked up only once the call has failed; whatever else
// failed is the provider's.
func (s *Service) fileError(ctx context.Context, c *call, err error, p string, wantDir bool) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, provider.ErrNotFound):
		return auxilia.Errorf(auxilia.CodeNotFound, "%s does not exist in the sandbox.", p).With("path", p)
	case errors.Is(err, provider.ErrPath):
		var fe auxilia.FieldErrors
		fe.Add("path", "%s", refusedPath(err, p))
		return fe.Err()
	case errors.Is(err, provider.ErrFailed) || errors.Is(err, provider.ErrInvalidConfig):
		if misfit := s.misfit(ctx, c, p, wantDir); misfit != nil {
			return misfit
		}
	}
	return s.providerError(c, err)
}

// refusedPath says why the provider refuses p, in its words when it gave some.
func refusedPath(err error, p string) string {
	var pe *provider.Error
	if errors.As(err, &pe) && pe.Message != "" {
		return pe.Message
	}
	return p + " leads out of the sandbox's files"
}

// misfitDepth bounds how many parents misfit looks at.
const misfitDepth = 8

// misfit says what in p is of the wrong kind for the call, if anything. It
// walks up p's parents while they do not exist (as a path through a file
// does not) and gives up at any other failure, which is the provider's.
func (s *Service) misfit(ctx context.Context, c *call, p string, wantDir bool) error {
	var fe auxilia.FieldErrors
	info, err := c.client.Stat(ctx, c.instance, p)
	switch {
	case err == nil && info.Dir && !wantDir:
		fe.Add("path", "%s is a directory: list it with ls", p)
		return fe.Err()
	case err == nil && !info.Dir && wantDir:
		fe.Add("path", "%s is a file, not a directory: read it with read_file", p)
		return fe.Err()
	case err == nil || !errors.Is(err, provider.ErrNotFound):
		return nil
	}
	dir := path.Dir(p)
	for range misfitDepth {
		if dir == "/" || dir == "." {
			return nil
		}
		info, err := c.client.Stat(ctx, c.instance, dir)
		switch {
		case err == nil && !info.Dir:
			fe.Add("path", "%s is a file, so nothing can be inside it", dir)
			return fe.Err()
		case err == nil || !errors.Is(err, provider.ErrNotFound):
			return nil
		}
		dir = path.Dir(dir)
	}
	return nil
}
