package api

import (
	"net/http"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/sandbox"
	"github.com/labstack/echo/v4"
)

type providerView struct {
	Name           string `json:"name" example:"daytona"`
	Title          string `json:"title" example:"Daytona"`
	Description    string `json:"description"`
	Enabled        bool   `json:"enabled"`
	DisabledReason string `json:"disabled_reason,omitempty"`
	// The provider's SVG image, as a data: URL for an <img>.
	Icon string `json:"icon" example:"data:image/svg+xml;base64,PHN2ZyB4bWxucz0i…"`
	// The provider's place in the catalogue, which lists providers by it, then by name.
	Order  int       `json:"order" example:"20"`
	URL    fieldView `json:"url"`
	Secret fieldView `json:"secret"`
	// What the provider's sandboxes can do beyond running commands and serving files.
	Capabilities []string `json:"capabilities" extensions:"x-enum=capabilities"`
	// The shell that runs each command's line: "bash", "sh", or "bash, or
	// sh where the image has no bash".
	Shell string `json:"shell" example:"bash, or sh where the image has no bash"`
	// The environment variables the provider reads from the server's operator.
	OperatorSettings []operatorSettingView `json:"operator_settings"`
	// The JSON Schema of a sandbox's config; its "x-common" lists the keys
	// every provider shares.
	ConfigSchema map[string]any `json:"config_schema"`
} //@name ProviderInfo

type operatorSettingView struct {
	Env         string `json:"env" example:"AUXILIA_LOCAL_PROVIDER"`
	Default     string `json:"default" example:"on"`
	Description string `json:"description"`
} //@name ProviderOperatorSetting

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
//	@ID			listProviders
//	@Router		/api/v1/providers [get]
func (h sandboxesHandler) providers(c echo.Context) error {
	out := providerList{Items: []providerView{}}
	for _, p := range h.svc.Catalogue() {
		out.Items = append(out.Items, viewProvider(p))
	}
	return c.JSON(http.StatusOK, out)
}

func viewProvider(p sandbox.ProviderInfo) providerView {
	settings := []operatorSettingView{}
	for _, s := range p.Settings {
		settings = append(settings, operatorSettingView{Env: s.Env, Default: s.Default, Description: s.Description})
	}
	return providerView{Name: p.Name, Title: p.Title, Description: p.Description, Enabled: p.Enabled,
		DisabledReason: p.DisabledReason, Icon: p.IconURL(), Order: p.Order, URL: viewField(p.URL), Secret: viewField(p.Secret),
		Capabilities: p.Capabilities.Names(), Shell: p.Shell, OperatorSettings: settings, ConfigSchema: p.ConfigSchema}
}
