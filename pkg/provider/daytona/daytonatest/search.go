package daytonatest

import (
	"bufio"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// searchFiles answers the paths under ?path whose name matches ?pattern
// (filepath.Match against the name alone, folders and the searched folder
// itself included, hidden ones too, every match, no limit), as
// {"files": […]}; a missing parameter is a bare 400 (SearchFiles in
// Daytona's apps/daemon/pkg/toolbox/fs/search_files.go).
func searchFiles(w http.ResponseWriter, r *http.Request, box sandboxBox) {
	dir, pattern := r.URL.Query().Get("path"), r.URL.Query().Get("pattern")
	if dir == "" || pattern == "" {
		bareStatus(w, http.StatusBadRequest) // c.AbortWithError
		return
	}
	matches := []string{}
	box.walk(dir, func(p string, d fs.DirEntry, _ *os.Root, _ string) {
		if ok, _ := filepath.Match(pattern, d.Name()); ok {
			matches = append(matches, p)
		}
	})
	writeJSON(w, http.StatusOK, map[string][]string{"files": matches})
}

// findInFiles answers every line of the regular files under ?path that
// contains ?pattern, taken literally, as [{file, line, content}]: a file
// whose first 512 bytes hold a NUL is binary and skipped, an empty one
// too, and a file's lines are read with bufio.Scanner's default 64 KiB
// bound, so that a longer line ends the file's search there; every match,
// no limit (FindInFiles in apps/daemon/pkg/toolbox/fs/find_in_files.go).
func findInFiles(w http.ResponseWriter, r *http.Request, box sandboxBox) {
	dir, pattern := r.URL.Query().Get("path"), r.URL.Query().Get("pattern")
	if dir == "" || pattern == "" {
		bareStatus(w, http.StatusBadRequest) // c.AbortWithError
		return
	}
	type match struct {
		File    string `json:"file"`
		Line    int    `json:"line"`
		Content string `json:"content"`
	}
	matches := []match{}
	box.walk(dir, func(p string, d fs.DirEntry, root *os.Root, name string) {
		if !d.Type().IsRegular() {
			return
		}
		f, err := root.Open(name)
		if err != nil {
			return
		}
		defer f.Close()
		head := make([]byte, 512)
		n, err := f.Read(head)
		if err != nil || strings.IndexByte(string(head[:n]), 0) >= 0 {
			return
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return
		}
		sc := bufio.NewScanner(f)
		for line := 1; sc.Scan(); line++ {
			if strings.Contains(sc.Text(), pattern) {
				matches = append(matches, match{File: p, Line: line, Content: sc.Text()})
			}
		}
	})
	writeJSON(w, http.StatusOK, matches)
}

// replaceInFiles replaces every occurrence of pattern by newValue in each
// file named, rewriting the file whether or not it held one, and answers
// [{file, success, error}] in the order named: a file it cannot read or
// write is a failure with Go's error, the others go on
// (ReplaceInFiles in apps/daemon/pkg/toolbox/fs/replace_in_files.go).
func replaceInFiles(w http.ResponseWriter, r *http.Request, box sandboxBox) {
	var req struct {
		Files    []string `json:"files"`
		Pattern  string   `json:"pattern"`
		NewValue *string  `json:"newValue"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		bareStatus(w, http.StatusBadRequest) // c.AbortWithError
		return
	}
	type result struct {
		File    string `json:"file"`
		Success bool   `json:"success"`
		Error   string `json:"error,omitempty"`
	}
	results := make([]result, 0, len(req.Files))
	for _, p := range req.Files {
		err := box.replaceIn(p, req.Pattern, req.NewValue)
		if err != nil {
			results = append(results, result{File: p, Error: err.Error()})
			continue
		}
		results = append(results, result{File: p, Success: true})
	}
	writeJSON(w, http.StatusOK, results)
}

// replaceIn does one file of replaceInFiles, inside the sandbox's folders.
func (b sandboxBox) replaceIn(p, pattern string, newValue *string) error {
	root, name, err := b.open(p)
	if err != nil {
		return &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	defer root.Close()
	content, err := root.ReadFile(name)
	if err != nil {
		return renamed(err, p)
	}
	value := ""
	if newValue != nil {
		value = *newValue
	}
	return renamed(root.WriteFile(name, []byte(strings.ReplaceAll(string(content), pattern, value)), 0o644), p)
}

// renamed words a file error with the path the caller gave, as the
// daemon's os calls do.
func renamed(err error, p string) error {
	if pe, ok := err.(*fs.PathError); ok {
		pe.Path = p
	}
	return err
}

// walk visits dir and everything under it in lexical order, as
// filepath.Walk does: without following symlinks, a folder it cannot read
// skipped. Each is named as the daemon names it: dir as given, then joined.
func (b sandboxBox) walk(dir string, visit func(p string, d fs.DirEntry, root *os.Root, name string)) {
	root, name, err := b.open(dir)
	if err != nil {
		return
	}
	defer root.Close()
	_ = fs.WalkDir(root.FS(), name, func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			return fs.SkipDir
		}
		p := dir
		switch {
		case rel == name:
		case name == ".":
			p = filepath.Join(dir, rel)
		default:
			p = filepath.Join(dir, strings.TrimPrefix(rel, name+"/"))
		}
		visit(p, d, root, rel)
		return nil
	})
}
