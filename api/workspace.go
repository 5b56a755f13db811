package api

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

type workspaceHandler struct{}

func (h workspaceHandler) routes(g routes) {
	g.GET("/workspace", h.workspace)
	g.GET("/me", h.me)
}

type workspaceView struct {
	ID   string `json:"id" format:"uuid"`
	Name string `json:"name" example:"default"`
} //@name Workspace

type me struct {
	TokenID   string        `json:"token_id" format:"uuid"`
	Name      string        `json:"name" example:"ci"`
	Role      string        `json:"role" enums:"admin,member"`
	Workspace workspaceView `json:"workspace"`
} //@name Me

// workspace describes the caller's workspace.
//
//	@Summary	The caller's workspace
//	@Tags		workspace
//	@Produce	json
//	@Security	BearerAuth
//	@Success	200	{object}	workspaceView
//	@Failure	401	{object}	Problem
//	@ID			getWorkspace
//	@Router		/api/v1/workspace [get]
func (h workspaceHandler) workspace(c echo.Context) error {
	a := actor(c)
	return c.JSON(http.StatusOK, workspaceView{ID: a.Workspace.ID, Name: a.Workspace.Name})
}

// me describes the caller's token.
//
//	@Summary	The caller's token, role and workspace
//	@Tags		workspace
//	@Produce	json
//	@Security	BearerAuth
//	@Success	200	{object}	me
//	@Failure	401	{object}	Problem
//	@ID			getMe
//	@Router		/api/v1/me [get]
func (h workspaceHandler) me(c echo.Context) error {
	a := actor(c)
	return c.JSON(http.StatusOK, me{
		TokenID: a.TokenID, Name: a.TokenName, Role: string(a.Role),
		Workspace: workspaceView{ID: a.Workspace.ID, Name: a.Workspace.Name},
	})
}
