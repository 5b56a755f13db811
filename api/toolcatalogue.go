package api

import (
	"net/http"

	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/labstack/echo/v4"
)

type toolView struct {
	Name        string `json:"name" example:"execute"`
	Title       string `json:"title" example:"Run a command"`
	Description string `json:"description"`
	// The policy a binding gives the tool when it sets none.
	DefaultPolicy string `json:"default_policy" extensions:"x-enum=tool_policies"`
	// The JSON Schema of the tool's arguments.
	InputSchema map[string]any `json:"input_schema"`
} //@name Tool

type toolList struct {
	Items []toolView `json:"items"`
} //@name ToolList

// tools lists the sandbox tools a run offers, in the order they are shown,
// each with what it does, its default policy and the schema of its arguments.
//
//	@Summary	The tool catalogue
//	@Tags		tools
//	@Produce	json
//	@Security	BearerAuth
//	@Success	200	{object}	toolList
//	@Failure	401	{object}	Problem
//	@ID			listTools
//	@Router		/api/v1/tools [get]
func (h runsHandler) tools(c echo.Context) error {
	out := toolList{Items: make([]toolView, len(run.Tools))}
	for i, t := range run.Tools {
		out.Items[i] = toolView{Name: t.Name, Title: t.Title, Description: t.Description,
			DefaultPolicy: string(t.Default), InputSchema: t.InputSchema()}
	}
	return c.JSON(http.StatusOK, out)
}
