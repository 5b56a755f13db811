package gateway

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path"
	"strings"
	"syscall"

	"github.com/auxilia/sandboxes/pkg/jailfs"
)

// workspaceName turns a path as the sandbox sees it (absolute under
// /workspace, or relative to it) into a name inside the workspace folder.
func workspaceName(p string) (string, error) {
	if p == "" {
		return "", invalid([]FieldError{{Field: "path", Message: "is required"}})
	}
	if strings.ContainsRune(p, 0) {
		return "", invalid([]FieldError{{Field: "path", Message: "must not contain NUL bytes"}})
	}
	clean, rel, ok := jailfs.Inside(WorkDir, p)
	if !ok {
		return "", failure(http.StatusUnprocessableEntity, "path_outside_workspace", "paths must be inside "+WorkDir+", not "+clean)
	}
	return rel, nil
}

// sandboxPath is the path the sandbox sees for a workspace name.
func sandboxPath(name string) string { return path.Join(WorkDir, name) }

// fileError turns a file system error into the API's answer, naming paths as the sandbox sees them.
func fileError(name string, err error) error {
	p := sandboxPath(name)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return failure(http.StatusNotFound, "file_not_found", "no such file or directory: "+p)
	case errors.Is(err, syscall.EISDIR):
		return failure(http.StatusConflict, "is_a_directory", p+" is a directory")
	case errors.Is(err, syscall.ENOTEMPTY), errors.Is(err, syscall.EEXIST):
		return failure(http.StatusConflict, "directory_not_empty", p+" is a directory that is not empty")
	case errors.Is(err, fs.ErrPermission):
		return failure(http.StatusForbidden, "permission_denied", "permission denied: "+p)
	}
	if jailfs.IsEscape(err) {
		return failure(http.StatusUnprocessableEntity, "path_outside_workspace", p+" leads outside the workspace through a symbolic link")
	}
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return failure(http.StatusUnprocessableEntity, "file_error", p+": "+pe.Err.Error())
	}
	return err
}
