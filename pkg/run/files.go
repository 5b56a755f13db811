package run

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/validation"
)

// MaxReadLimit bounds the lines read_file reads at once (its input's
// limit, whose default its tag gives).
const MaxReadLimit = 20000

// Bounds in bytes of what the file tools hold.
const (
	// MaxLineBytes bounds a line that read_file or grep gives: longer ones are cut.
	MaxLineBytes = 16 << 10
	// MaxReadBytes bounds the content of a read_file answer: its window
	// ends before the line that would pass it.
	MaxReadBytes = 1 << 20
	// MaxEditBytes is the largest file edit_file changes: it holds the file
	// in memory, before and after.
	MaxEditBytes = 16 << 20
)

// MaxListEntries bounds the entries ls gives.
const MaxListEntries = 10000

// Listing is a directory's entries. Truncated says it has more than
// MaxListEntries, and only that many are given.
type Listing struct {
	Entries   []provider.FileInfo
	Truncated bool
}

// List lists a directory of the run's instance (its working directory when the path is empty).
func (s *Service) List(ctx context.Context, workspaceID, runID string, in ListInput, approved bool) (Listing, error) {
	dir := in.Path
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	c, err := s.begin(ctx, workspaceID, runID, Call{Tool: "ls", Input: in, Approved: approved, Args: map[string]any{"path": dir}})
	if err != nil {
		return Listing{}, err
	}
	p, err := resolve(c, "path", dir)
	if err != nil {
		return Listing{}, err
	}
	entries, err := c.client.ListFiles(ctx, c.instance, p, MaxListEntries+1)
	if err != nil {
		return Listing{}, s.fileError(ctx, c, err, p, wantDirectory)
	}
	if len(entries) > MaxListEntries {
		return Listing{Entries: entries[:MaxListEntries], Truncated: true}, nil
	}
	return Listing{Entries: entries}, nil
}

// Text is a window of a text file's lines. Truncated says a line of it was
// cut at MaxLineBytes, or the window ends early, before MaxReadBytes: the
// next window starts at Offset+Lines.
type Text struct {
	Path       string
	Content    string
	Offset     int
	Lines      int
	TotalLines int
	Truncated  bool
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

// Read returns up to in.Limit lines of a text file from line in.Offset (0-based).
func (s *Service) Read(ctx context.Context, workspaceID, runID string, in ReadInput, approved bool) (Text, error) {
	file, offset, limit := in.Path, in.Offset, in.Limit
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
	c, err := s.begin(ctx, workspaceID, runID, Call{Tool: "read_file", Input: in, Approved: approved, Args: map[string]any{"path": file}})
	if err != nil {
		return Text{}, err
	}
	p, err := resolve(c, "path", file)
	if err != nil {
		return Text{}, err
	}
	f, err := c.client.OpenFile(ctx, c.instance, p)
	if err != nil {
		return Text{}, s.fileError(ctx, c, err, p, wantFile)
	}
	defer f.Close()
	out, err := readWindow(ctx, f, offset, limit)
	switch {
	case errors.Is(err, errBinary):
		return Text{}, binaryFile()
	case err != nil:
		return Text{}, s.providerError(c, err)
	}
	out.Path = p
	return out, nil
}

// Write creates a file (and its parent directories); an existing file is not overwritten.
func (s *Service) Write(ctx context.Context, workspaceID, runID string, in WriteInput, approved bool) (string, error) {
	return s.write(ctx, workspaceID, runID, in, approved, false)
}

// Overwrite writes a file whether it exists or not. It is no tool of the
// model's (write_file never replaces a file) but a person's act in the
// console, so it always needs their approval, given with the call where the
// agent's approval rule lets it count, whatever write_file's policy (a
// disabled write_file stays disabled).
func (s *Service) Overwrite(ctx context.Context, workspaceID, runID string, in WriteInput, approved bool) (string, error) {
	if in.Path != "" {
		args := map[string]any{"path": in.Path, "bytes": len(in.Content), "overwrite": true}
		c := Call{Tool: "write_file", Input: in, Approved: approved, Args: args}
		view, err := s.allowed(ctx, workspaceID, runID, c)
		if err != nil {
			return "", err
		}
		agent := view.Agent
		refusal := auxilia.Errorf(auxilia.CodeApprovalRequired,
			"Replacing %s needs a person's approval: it overwrites the file's content.", in.Path).
			With("tool", "write_file").With("arguments", args)
		if err := approvedAsMade(ctx, agent, c, refusal, "Replacing "+in.Path); err != nil {
			return "", err
		}
	}
	return s.write(ctx, workspaceID, runID, in, approved, true)
}

func (s *Service) write(ctx context.Context, workspaceID, runID string, in WriteInput, approved, overwrite bool) (string, error) {
	file, data := in.Path, in.Content
	if file == "" {
		var fe auxilia.FieldErrors
		fe.Add("path", "is required")
		return "", fe.Err()
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	args := map[string]any{"path": file, "bytes": len(data)}
	if overwrite {
		args["overwrite"] = true
	}
	c, err := s.begin(ctx, workspaceID, runID, Call{Tool: "write_file", Input: in, Approved: approved, Args: args})
	if err != nil {
		return "", err
	}
	p, err := resolve(c, "path", file)
	if err != nil {
		return "", err
	}
	info, err := c.client.Stat(ctx, c.instance, p)
	switch {
	case err == nil && info.Dir:
		return "", auxilia.Errorf(auxilia.CodeFileExists, "%s is a directory.", p).With("path", p)
	case err == nil && !overwrite:
		return "", auxilia.Errorf(auxilia.CodeFileExists, "%s already exists: edit it, or replace it with a person's approval.", p).With("path", p)
	case err != nil && !errors.Is(err, provider.ErrNotFound):
		return "", s.fileError(ctx, c, err, p, wantFile)
	}
	if err := c.client.WriteFile(ctx, c.instance, p, data); err != nil {
		return "", s.fileError(ctx, c, err, p, wantFile)
	}
	return p, nil
}

// Edit replaces in.OldString with in.NewString in a text file: exactly
// once unless in.ReplaceAll is set.
//
// It reads the file and writes it back on every provider, OpenSandbox
// included: execd's POST /files/replace replaces every occurrence, with no
// bound on the file's size, no check that it is text, and a count only
// after the change, so it cannot refuse an old_string found twice, or none,
// before it writes; and used after our own read, it would replace in a file
// that may have changed since.
func (s *Service) Edit(ctx context.Context, workspaceID, runID string, in EditInput, approved bool) (int, error) {
	file, old, replacement, all := in.Path, in.OldString, in.NewString, in.ReplaceAll
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
	c, err := s.begin(ctx, workspaceID, runID, Call{Tool: "edit_file", Input: in, Approved: approved, Args: map[string]any{"path": file}})
	if err != nil {
		return 0, err
	}
	p, err := resolve(c, "path", file)
	if err != nil {
		return 0, err
	}
	data, err := s.readEditable(ctx, c, p)
	if err != nil {
		return 0, err
	}
	if !validation.Text(string(data)) {
		return 0, binaryFile()
	}
	n := bytes.Count(data, []byte(old))
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
	edited := bytes.Replace(data, []byte(old), []byte(replacement), n)
	return n, s.providerError(c, c.client.WriteFile(ctx, c.instance, p, edited))
}

// readEditable reads a whole file of at most MaxEditBytes.
func (s *Service) readEditable(ctx context.Context, c *call, p string) ([]byte, error) {
	f, err := c.client.OpenFile(ctx, c.instance, p)
	if err != nil {
		return nil, s.fileError(ctx, c, err, p, wantFile)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxEditBytes+1))
	if err != nil {
		return nil, s.providerError(c, err)
	}
	if len(data) > MaxEditBytes {
		var fe auxilia.FieldErrors
		fe.Add("path", "%s is larger than %d MiB, the most edit_file changes: edit it with execute", p, MaxEditBytes>>20)
		return nil, fe.Err()
	}
	return data, nil
}

// binaryFile refuses a file that is not text in the text tools.
func binaryFile() error {
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
