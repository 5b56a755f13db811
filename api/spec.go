package api

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

type specHandler []byte

// serve answers with the contract this server implements.
//
//	@Summary	This API's OpenAPI document
//	@Tags		health
//	@Produce	application/yaml
//	@Success	200	{string}	string	"The OpenAPI 3 document, as YAML text"
//	@ID			getOpenAPI
//	@Router		/api/v1/openapi.yaml [get]
func (spec specHandler) serve(c echo.Context) error {
	return c.Blob(http.StatusOK, "application/yaml", spec)
}
