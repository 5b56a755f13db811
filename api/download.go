package api

import (
	"io"
	"mime"
	"net/http"
	"path"
	"strconv"

	"github.com/labstack/echo/v4"
)

// download sends a file of the run's sandbox as it is, for a person to save.
//
//	@Summary		Download a file
//	@Description	The file's bytes, any content, as an attachment named after the file. It counts as a read: the `read_file` tool's policy applies, approvals included. A file larger than the server's upload limit (`AUXILIA_UPLOAD_BODY_LIMIT`) or a directory is refused with 422 before a byte is sent; the body has exactly `Content-Length` bytes unless the file changed while it was read.
//	@Tags			tools
//	@Produce		octet-stream
//	@Security		BearerAuth
//	@Param			run_id				path		string	true	"Run id"	format(uuid)
//	@Param			path				query		string	true	"File; relative paths resolve against the working directory"	maxlength(4096)
//	@Param			Auxilia-Approval	header		string	false	"granted: a person approved this call; it counts only where the binding's approval rule lets the caller grant it (else the call waits in the console, as without it)"	Enums(granted)
//	@Success		200					{file}		binary
//	@Failure		401,403,404,409,422,428	{object}	Problem
//	@ID				downloadFile
//	@Router			/api/v1/runs/{run_id}/files/raw [get]
func (h runsHandler) download(c echo.Context) error {
	id, err := pathID(c, "run_id", "run")
	if err != nil {
		return err
	}
	d, err := h.svc.Download(c.Request().Context(), actor(c).Workspace.ID, id, c.QueryParam("path"), h.uploadLimit, approved(c))
	if err != nil {
		return err
	}
	defer d.Body.Close()
	head := c.Response().Header()
	head.Set(echo.HeaderContentType, echo.MIMEOctetStream)
	head.Set(echo.HeaderContentDisposition, mime.FormatMediaType("attachment", map[string]string{"filename": path.Base(d.Path)}))
	head.Set(echo.HeaderContentLength, strconv.FormatInt(d.Size, 10))
	c.Response().WriteHeader(http.StatusOK)
	_, err = io.Copy(c.Response(), d.Body)
	return err // after the header: the short body tells the client
}
