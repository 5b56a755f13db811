package api

import (
	"context"
	"net/http"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/token"
	"github.com/labstack/echo/v4"
)

type tokenService interface {
	Create(ctx context.Context, workspaceID, name string, role auxilia.Role) (token.Issued, error)
	List(ctx context.Context, workspaceID string, req auxilia.PageRequest) (auxilia.Page[auxilia.Token], error)
	Revoke(ctx context.Context, workspaceID, id string) error
}

type tokensHandler struct{ svc tokenService }

func (h tokensHandler) routes(g routes, idem echo.MiddlewareFunc) {
	g.POST("/tokens", h.create, adminOnly, idem)
	g.GET("/tokens", h.list, adminOnly)
	g.DELETE("/tokens/:id", h.revoke, adminOnly)
}

type tokenView struct {
	ID   string `json:"id" format:"uuid"`
	Name string `json:"name" example:"ci"`
	Role string `json:"role" enums:"admin,member"`
	// CreatedBy names the person who made the token in the console ("" when
	// a token or the command line made it).
	CreatedBy  string     `json:"created_by" example:"ada@example.com"`
	CreatedAt  time.Time  `json:"created_at" format:"date-time"`
	LastUsedAt *time.Time `json:"last_used_at" format:"date-time" extensions:"x-nullable"`
} //@name Token

type createdToken struct {
	ID        string    `json:"id" format:"uuid"`
	Name      string    `json:"name" example:"ci"`
	Role      string    `json:"role" enums:"admin,member"`
	Token     string    `json:"token" example:"aux_3q2-7Xw…"`
	CreatedAt time.Time `json:"created_at" format:"date-time"`
} //@name CreatedToken

type tokenCreate struct {
	Name string `json:"name" example:"ci" minLength:"1" maxLength:"255"`
	Role string `json:"role" enums:"admin,member" default:"member" binding:"optional"`
} //@name TokenCreate

type tokenList list[tokenView] //@name TokenList

func viewToken(t auxilia.Token) tokenView {
	return tokenView{ID: t.ID, Name: t.Name, Role: string(t.Role), CreatedBy: t.CreatedBy, CreatedAt: t.CreatedAt, LastUsedAt: t.LastUsedAt}
}

// create issues a token; its value is in this answer and nowhere else, ever.
//
//	@Summary	Create an API token
//	@Tags		tokens
//	@Accept		json
//	@Produce	json
//	@Security	BearerAuth
//	@Param		Idempotency-Key	header		string		false	"Makes the request safe to retry"	maxLength(255)
//	@Param		body			body		tokenCreate	true	"The new token"
//	@Success	201				{object}	createdToken
//	@Failure	400,401,403,409,413,415,422	{object}	Problem
//	@ID			createToken
//	@Router		/api/v1/tokens [post]
func (h tokensHandler) create(c echo.Context) error {
	var req tokenCreate
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if req.Role == "" {
		req.Role = string(auxilia.RoleMember)
	}
	issued, err := h.svc.Create(c.Request().Context(), actor(c).Workspace.ID, req.Name, auxilia.Role(req.Role))
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderLocation, "/api/v1/tokens/"+issued.ID)
	return c.JSON(http.StatusCreated, createdToken{
		ID: issued.ID, Name: issued.Name, Role: string(issued.Role), Token: issued.Value, CreatedAt: issued.CreatedAt,
	})
}

// list pages through the workspace's tokens (never their values).
//
//	@Summary	List API tokens
//	@Tags		tokens
//	@Produce	json
//	@Security	BearerAuth
//	@Param		page_size	query		int		false	"Items per page"	minimum(1)	maximum(200)	default(50)
//	@Param		page_token	query		string	false	"next_page_token of the previous page"
//	@Success	200			{object}	tokenList
//	@Failure	401,403,422	{object}	Problem
//	@ID			listTokens
//	@Router		/api/v1/tokens [get]
func (h tokensHandler) list(c echo.Context) error {
	req, err := pageRequest(c)
	if err != nil {
		return err
	}
	page, err := h.svc.List(c.Request().Context(), actor(c).Workspace.ID, req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, tokenList(listOf(page, viewToken)))
}

// revoke ends a token at once.
//
//	@Summary	Revoke an API token
//	@Tags		tokens
//	@Security	BearerAuth
//	@Param		id	path	string	true	"Token id"	format(uuid)
//	@Success	204
//	@Failure	401,403,404	{object}	Problem
//	@ID			revokeToken
//	@Router		/api/v1/tokens/{id} [delete]
func (h tokensHandler) revoke(c echo.Context) error {
	id, err := pathID(c, "id", "token")
	if err != nil {
		return err
	}
	if err := h.svc.Revoke(c.Request().Context(), actor(c).Workspace.ID, id); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
