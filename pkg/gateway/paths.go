package gateway

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path"
	"strings"
	"syscall"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/gateway/wire"
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
		return "", failure(http.StatusUnprocessableEntity, auxilia.CodeInvalid, "paths must be inside "+WorkDir+", not "+clean).about(wire.SubjectPath)
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
		return failure(http.StatusNotFound, auxilia.CodeNotFound, "no such file or directory: "+p).about(wire.SubjectFile)
	case errors.Is(err, syscall.EISDIR):
		return failure(http.StatusConflict, auxilia.CodeConflict, p+" is a directory").about(wire.SubjectDirectory)
	case errors.Is(err, syscall.ENOTEMPTY), errors.Is(err, syscall.EEXIST):
		return failure(http.StatusConflict, auxilia.CodeConflict, p+" is a directory that is not empty").about(wire.SubjectDirectory)
	case errors.Is(err, fs.ErrPermission):
		return failure(http.StatusForbidden, auxilia.CodeForbidden, "permission denied: "+p).about(wire.SubjectFile)
	}
	if jailfs.IsEscape(err) {
		return failure(http.StatusUnprocessableEntity, auxilia.CodeInvalid, p+" leads outside the workspace through a symbolic link").about(wire.SubjectPath)
	}
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return failure(http.StatusUnprocessableEntity, auxilia.CodeInvalid, p+": "+pe.Err.Error()).about(wire.SubjectFile)
	}
	return err
}
