package api

import (
	"io"
	"reflect"
	"strconv"

	"github.com/auxilia/sandboxes/api/toolview"
	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/validation"
	"github.com/labstack/echo/v4"
)

// headerApproval carries a person's approval of a tool that needs one.
const headerApproval = "Auxilia-Approval"

// toolHandler serves a tool of run.Tools over REST: it decodes the tool's
// input from the request, calls it and words its answer.
type toolHandler struct {
	serve func(h runsHandler, c echo.Context, t run.Tool) error
	// upload says the request's body is a file, which may pass the JSON limit.
	upload bool
}

// toolHandlers are the REST handlers of the tools, by name: one for each of run.Tools.
var toolHandlers = map[string]toolHandler{
	"execute":    {serve: runsHandler.execute},
	"ls":         {serve: runsHandler.ls},
	"read_file":  {serve: runsHandler.readFile},
	"write_file": {serve: runsHandler.writeFile, upload: true},
	"edit_file":  {serve: runsHandler.edit},
	"glob":       {serve: runsHandler.glob},
	"grep":       {serve: runsHandler.grep},
}

// toolRoutes registers the tool catalogue and each tool's route, as run.Tools says.
func (h runsHandler) toolRoutes(g routes) {
	g.GET("/tools", h.tools)
	for _, t := range run.Tools {
		th, ok := toolHandlers[t.Name]
		if !ok {
			panic("api: the tool " + t.Name + " has no REST handler")
		}
		var mw []echo.MiddlewareFunc
		if th.upload {
			mw = append(mw, raiseBodyLimit(h.uploadLimit))
		}
		g.add(t.Method, t.Path, func(c echo.Context) error { return th.serve(h, c, t) }, mw)
	}
}

// approved reports whether the caller says a person approved the call; the
// run service decides whether its word counts (the binding's approval rule).
func approved(c echo.Context) bool { return c.Request().Header.Get(headerApproval) == "granted" }

// execute runs a command in the run's sandbox.
//
//	@Summary		Run a command (the execute tool)
//	@Description	Runs in the instance's working directory with the sandbox's timeout (a shorter `timeout` may be asked). A command that runs out of time ends with exit code 124 and "Command timed out after N seconds". With `Accept: text/event-stream` the output streams as `stdout` and `stderr` events (data: {"text"}), then an `exit` event (data: {"exit_code","duration_ms","truncated"}).
//	@Tags			tools
//	@Accept			json
//	@Produce		json,text/event-stream
//	@Security		BearerAuth
//	@Param			run_id				path		string			true	"Run id"	format(uuid)
//	@Param			Auxilia-Approval	header		string			false	"granted: a person approved this call; it counts only where the binding's approval rule lets the caller grant it (else the call waits in the console, as without it)"	Enums(granted)
//	@Param			body				body		run.ExecInput	true	"The command"
//	@Success		200					{object}	toolview.ExecuteResult
//	@Failure		400,401,403,404,409,413,415,422,428	{object}	Problem
//	@ID				execute
//	@Router			/api/v1/runs/{run_id}/execute [post]
func (h runsHandler) execute(c echo.Context, t run.Tool) error {
	id, err := pathID(c, "run_id", "run")
	if err != nil {
		return err
	}
	var in run.ExecInput
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	in.Approved = approved(c)
	if wantsEventStream(c) {
		return h.executeStream(c, id, in)
	}
	res, err := h.svc.Execute(c.Request().Context(), actor(c).Workspace.ID, id, in)
	if err != nil {
		return err
	}
	return c.JSON(t.Status, toolview.Execute(res))
}

// ls lists a directory of the run's sandbox.
//
//	@Summary		List a directory (the ls tool)
//	@Description	At most 10000 entries: of a larger directory some are given, with `truncated` set.
//	@Tags			tools
//	@Produce		json
//	@Security		BearerAuth
//	@Param			run_id				path		string	true	"Run id"	format(uuid)
//	@Param			path				query		string	false	"Directory; relative paths resolve against the working directory (the default)"	maxlength(4096)
//	@Param			Auxilia-Approval	header		string	false	"granted: a person approved this call; it counts only where the binding's approval rule lets the caller grant it (else the call waits in the console, as without it)"	Enums(granted)
//	@Success		200					{object}	toolview.ListResult
//	@Failure		401,403,404,409,422,428	{object}	Problem
//	@ID				listDirectory
//	@Router			/api/v1/runs/{run_id}/ls [get]
func (h runsHandler) ls(c echo.Context, t run.Tool) error {
	id, err := pathID(c, "run_id", "run")
	if err != nil {
		return err
	}
	var in run.ListInput
	if err := queryInput(c, &in).Err(); err != nil {
		return err
	}
	listing, err := h.svc.List(c.Request().Context(), actor(c).Workspace.ID, id, in, approved(c))
	if err != nil {
		return err
	}
	return c.JSON(t.Status, toolview.List(listing))
}

// readFile reads lines of a text file.
//
//	@Summary		Read a text file (the read_file tool)
//	@Description	Up to `limit` lines from line `offset`, each cut at 16 KiB, together within 1 MiB: `truncated` says a line was cut or the window ended early (read on from offset+lines). A binary file is refused: 422.
//	@Tags			tools
//	@Produce		json
//	@Security		BearerAuth
//	@Param			run_id				path		string	true	"Run id"	format(uuid)
//	@Param			path				query		string	true	"File; relative paths resolve against the working directory"	maxlength(4096)
//	@Param			offset				query		int		false	"First line, from 0"	minimum(0)	default(0)
//	@Param			limit				query		int		false	"Most lines"	minimum(1)	maximum(20000)	default(2000)
//	@Param			Auxilia-Approval	header		string	false	"granted: a person approved this call; it counts only where the binding's approval rule lets the caller grant it (else the call waits in the console, as without it)"	Enums(granted)
//	@Success		200					{object}	toolview.FileContent
//	@Failure		401,403,404,409,422,428	{object}	Problem
//	@ID				readFile
//	@Router			/api/v1/runs/{run_id}/files [get]
func (h runsHandler) readFile(c echo.Context, t run.Tool) error {
	id, err := pathID(c, "run_id", "run")
	if err != nil {
		return err
	}
	var in run.ReadInput
	fe := queryInput(c, &in)
	run.CheckWindow(&fe, in.Offset, in.Limit) // every broken field at once, not only what did not parse
	if err := fe.Err(); err != nil {
		return err
	}
	text, err := h.svc.Read(c.Request().Context(), actor(c).Workspace.ID, id, in, approved(c))
	if err != nil {
		return err
	}
	return c.JSON(t.Status, toolview.Read(text))
}

// writeFile creates a file from the request body.
//
//	@Summary		Create a file (the write_file tool)
//	@Description	The body's bytes are the file (any content type). Parent directories are made. A file that exists is not overwritten (409 file_exists) unless overwrite is true, which always needs a person's approval: the write_file tool itself never replaces a file.
//	@Tags			tools
//	@Accept			octet-stream
//	@Produce		json
//	@Security		BearerAuth
//	@Param			run_id				path		string	true	"Run id"	format(uuid)
//	@Param			path				query		string	true	"File; relative paths resolve against the working directory"	maxlength(4096)
//	@Param			overwrite			query		boolean	false	"Replace the file if it exists (needs Auxilia-Approval: granted that the binding's approval rule lets count, whatever the tool's policy: never kept pending)"	default(false)
//	@Param			Auxilia-Approval	header		string	false	"granted: a person approved this call; it counts only where the binding's approval rule lets the caller grant it (else the call waits in the console, as without it)"	Enums(granted)
//	@Param			body				body		string	true	"The file's bytes"
//	@Success		201					{object}	toolview.WrittenFile
//	@Failure		401,403,404,409,413,422,428	{object}	Problem
//	@ID				writeFile
//	@Router			/api/v1/runs/{run_id}/files [put]
func (h runsHandler) writeFile(c echo.Context, t run.Tool) error {
	id, err := pathID(c, "run_id", "run")
	if err != nil {
		return err
	}
	var in run.WriteInput
	fe := queryInput(c, &in)
	overwrite, ok := queryBool(c, "overwrite")
	if !ok {
		fe.Add("overwrite", "must be true or false")
	}
	if err := fe.Err(); err != nil {
		return err
	}
	if in.Content, err = io.ReadAll(c.Request().Body); err != nil {
		return bodyReadError(err)
	}
	write := h.svc.Write
	if overwrite {
		write = h.svc.Overwrite
	}
	p, err := write(c.Request().Context(), actor(c).Workspace.ID, id, in, approved(c))
	if err != nil {
		return err
	}
	return c.JSON(t.Status, toolview.Written(p))
}

// edit replaces text in a file.
//
//	@Summary		Edit a text file (the edit_file tool)
//	@Description	Replaces old_string with new_string: it must occur exactly once, unless replace_all is set. Not found, or not unique: 422. A file larger than 16 MiB is not edited: 422 on path.
//	@Tags			tools
//	@Accept			json
//	@Produce		json
//	@Security		BearerAuth
//	@Param			run_id				path		string		true	"Run id"	format(uuid)
//	@Param			Auxilia-Approval	header		string		false	"granted: a person approved this call; it counts only where the binding's approval rule lets the caller grant it (else the call waits in the console, as without it)"	Enums(granted)
//	@Param			body				body		run.EditInput	true	"The edit"
//	@Success		200					{object}	toolview.EditResult
//	@Failure		400,401,403,404,409,413,415,422,428	{object}	Problem
//	@ID				editFile
//	@Router			/api/v1/runs/{run_id}/edit [post]
func (h runsHandler) edit(c echo.Context, t run.Tool) error {
	id, err := pathID(c, "run_id", "run")
	if err != nil {
		return err
	}
	var in run.EditInput
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	n, err := h.svc.Edit(c.Request().Context(), actor(c).Workspace.ID, id, in, approved(c))
	if err != nil {
		return err
	}
	return c.JSON(t.Status, toolview.Edited(n))
}

// glob finds paths by pattern.
//
//	@Summary		Find files by pattern (the glob tool)
//	@Description	Up to 1000 paths, sorted, among the first 50000 under `path`: `truncated` says some were left out.
//	@Tags			tools
//	@Produce		json
//	@Security		BearerAuth
//	@Param			run_id				path		string	true	"Run id"	format(uuid)
//	@Param			pattern				query		string	true	"* and ? within a name, [abc] a class, {py,ts} a set, ** across directories, e.g. **/*.{py,ts}"	maxlength(1024)
//	@Param			path				query		string	false	"Directory to search (the working directory by default)"	maxlength(4096)
//	@Param			Auxilia-Approval	header		string	false	"granted: a person approved this call; it counts only where the binding's approval rule lets the caller grant it (else the call waits in the console, as without it)"	Enums(granted)
//	@Success		200					{object}	toolview.GlobResult
//	@Failure		401,403,404,409,422,428	{object}	Problem
//	@ID				glob
//	@Router			/api/v1/runs/{run_id}/glob [get]
func (h runsHandler) glob(c echo.Context, t run.Tool) error {
	id, err := pathID(c, "run_id", "run")
	if err != nil {
		return err
	}
	var in run.GlobInput
	if err := queryInput(c, &in).Err(); err != nil {
		return err
	}
	found, err := h.svc.Glob(c.Request().Context(), actor(c).Workspace.ID, id, in, approved(c))
	if err != nil {
		return err
	}
	return c.JSON(t.Status, toolview.Glob(found))
}

// grep finds lines containing text.
//
//	@Summary		Search files for text (the grep tool)
//	@Description	Up to 1000 lines, each cut at 16 KiB: `truncated` says some were left out or cut.
//	@Tags			tools
//	@Produce		json
//	@Security		BearerAuth
//	@Param			run_id				path		string	true	"Run id"	format(uuid)
//	@Param			pattern				query		string	true	"Text to find, taken literally"	maxlength(1024)
//	@Param			path				query		string	false	"File or directory to search (the working directory by default)"	maxlength(4096)
//	@Param			Auxilia-Approval	header		string	false	"granted: a person approved this call; it counts only where the binding's approval rule lets the caller grant it (else the call waits in the console, as without it)"	Enums(granted)
//	@Success		200					{object}	toolview.GrepResult
//	@Failure		401,403,404,409,422,428	{object}	Problem
//	@ID				grep
//	@Router			/api/v1/runs/{run_id}/grep [get]
func (h runsHandler) grep(c echo.Context, t run.Tool) error {
	id, err := pathID(c, "run_id", "run")
	if err != nil {
		return err
	}
	var in run.GrepInput
	if err := queryInput(c, &in).Err(); err != nil {
		return err
	}
	found, err := h.svc.Grep(c.Request().Context(), actor(c).Workspace.ID, id, in, approved(c))
	if err != nil {
		return err
	}
	return c.JSON(t.Status, toolview.Grep(found))
}

// queryInput fills a tool's input from the query parameters named as its
// fields are in JSON: text as it is, whole numbers parsed (their default
// tag when absent). It returns every parameter that does not parse.
// queryBool reads a query parameter that is true, false, or absent (false).
func queryBool(c echo.Context, name string) (value, ok bool) {
	switch c.QueryParam(name) {
	case "", "false":
		return false, true
	case "true":
		return true, true
	}
	return false, false
}

func queryInput(c echo.Context, in any) auxilia.FieldErrors {
	var fe auxilia.FieldErrors
	v := reflect.ValueOf(in).Elem()
	for _, f := range reflect.VisibleFields(v.Type()) {
		name := validation.JSONName(f)
		if !f.IsExported() || name == "" {
			continue
		}
		raw := c.QueryParam(name)
		switch field := v.FieldByIndex(f.Index); field.Kind() {
		case reflect.String:
			field.SetString(raw)
		case reflect.Int:
			if raw == "" {
				raw = f.Tag.Get("default")
			}
			if raw == "" {
				continue
			}
			n, err := strconv.Atoi(raw)
			if err != nil {
				fe.Add(name, "must be a whole number")
			}
			field.SetInt(int64(n))
		}
	}
	return fe
}
