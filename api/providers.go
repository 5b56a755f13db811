package api

import (
	"net/http"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/sandbox"
	"github.com/labstack/echo/v4"
)

type providerView struct {
	Name           string         `json:"name" example:"daytona"`
	Title          string         `json:"title" example:"Daytona"`
	Description    string         `json:"description"`
	Enabled        bool           `json:"enabled"`
	DisabledReason string         `json:"disabled_reason,omitempty"`
	URL            fieldView      `json:"url"`
	Secret         fieldView      `json:"secret"`
	ConfigSchema   map[string]any `json:"config_schema"`
} //@name Provider

type fieldView struct {
	Accepted bool   `json:"accepted"`
	Required bool   `json:"required"`
	Default  string `json:"default" example:"https://app.daytona.io/api"`
	Label    string `json:"label" example:"API URL"`
} //@name ProviderField

type providerList struct {
	Items []providerView `json:"items"`
} //@name ProviderList

func viewField(f provider.Field) fieldView {
	return fieldView{Accepted: f.Accepted, Required: f.Required, Default: f.Default, Label: f.Label}
}

// providers lists the providers this server offers, each with the JSON
// Schema of its config, from which the Add sandbox dialog renders its form.
//
//	@Summary	The provider catalogue
//	@Tags		sandboxes
//	@Produce	json
//	@Security	BearerAuth
//	@Success	200	{object}	providerList
//	@Failure	401	{object}	Problem
//	@Router		/api/v1/providers [get]
func (h sandboxesHandler) providers(c echo.Context) error {
	out := providerList{Items: []providerView{}}
	for _, p := range h.svc.Catalogue() {
		out.Items = append(out.Items, viewProvider(p))
	}
	return c.JSON(http.StatusOK, out)
}

func viewProvider(p sandbox.ProviderInfo) providerView {
	return providerView{Name: p.Name, Title: p.Title, Description: p.Description, Enabled: p.Enabled,
		DisabledReason: p.DisabledReason, URL: viewField(p.URL), Secret: viewField(p.Secret), ConfigSchema: p.ConfigSchema}
}
