package client

import (
	"context"
	"fmt"
	"iter"

	openapi_types "github.com/oapi-codegen/runtime/types"
)

// The paged lists, each as an iterator over its items: it asks for the
// next page when the caller has taken the last item of one, and ends at
// the last page, at the caller's break, or with an error (an *Error for a
// refusal) yielded once. The params' PageSize is each page's size; their
// PageToken, if set, is the page to begin with.
//
//	for agent, err := range client.Agents(ctx, api, client.ListAgentsParams{}) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(agent.Name)
//	}

// Agents yields the workspace's agents.
func Agents(ctx context.Context, api *API, params ListAgentsParams) iter.Seq2[Agent, error] {
	return pages(params.PageToken, func(token *string) (*AgentList, error) {
		params.PageToken = token
		res, err := Expect(api.ListAgentsWithResponse(ctx, &params))
		return listOf(res, err, func(r *ListAgentsResponse) *AgentList { return r.JSON200 })
	}, func(l *AgentList) ([]Agent, string) { return l.Items, l.NextPageToken })
}

// Threads yields an agent's threads.
func Threads(ctx context.Context, api *API, agentID openapi_types.UUID, params ListThreadsParams) iter.Seq2[Thread, error] {
	return pages(params.PageToken, func(token *string) (*ThreadList, error) {
		params.PageToken = token
		res, err := Expect(api.ListThreadsWithResponse(ctx, agentID, &params))
		return listOf(res, err, func(r *ListThreadsResponse) *ThreadList { return r.JSON200 })
	}, func(l *ThreadList) ([]Thread, string) { return l.Items, l.NextPageToken })
}

// Runs yields a thread's runs.
func Runs(ctx context.Context, api *API, agentID openapi_types.UUID, threadID string, params ListRunsParams) iter.Seq2[Run, error] {
	return pages(params.PageToken, func(token *string) (*RunList, error) {
		params.PageToken = token
		res, err := Expect(api.ListRunsWithResponse(ctx, agentID, threadID, &params))
		return listOf(res, err, func(r *ListRunsResponse) *RunList { return r.JSON200 })
	}, func(l *RunList) ([]Run, string) { return l.Items, l.NextPageToken })
}

// AuditEntries yields the audit log's entries that params select.
func AuditEntries(ctx context.Context, api *API, params ListAuditEntriesParams) iter.Seq2[AuditEntry, error] {
	return pages(params.PageToken, func(token *string) (*AuditList, error) {
		params.PageToken = token
		res, err := Expect(api.ListAuditEntriesWithResponse(ctx, &params))
		return listOf(res, err, func(r *ListAuditEntriesResponse) *AuditList { return r.JSON200 })
	}, func(l *AuditList) ([]AuditEntry, string) { return l.Items, l.NextPageToken })
}

// Sandboxes yields the workspace's sandboxes.
func Sandboxes(ctx context.Context, api *API, params ListSandboxesParams) iter.Seq2[Sandbox, error] {
	return pages(params.PageToken, func(token *string) (*SandboxList, error) {
		params.PageToken = token
		res, err := Expect(api.ListSandboxesWithResponse(ctx, &params))
		return listOf(res, err, func(r *ListSandboxesResponse) *SandboxList { return r.JSON200 })
	}, func(l *SandboxList) ([]Sandbox, string) { return l.Items, l.NextPageToken })
}

// SandboxAgents yields the agents bound to a sandbox.
func SandboxAgents(ctx context.Context, api *API, sandboxID openapi_types.UUID, params ListSandboxAgentsParams) iter.Seq2[AgentRef, error] {
	return pages(params.PageToken, func(token *string) (*AgentRefList, error) {
		params.PageToken = token
		res, err := Expect(api.ListSandboxAgentsWithResponse(ctx, sandboxID, &params))
		return listOf(res, err, func(r *ListSandboxAgentsResponse) *AgentRefList { return r.JSON200 })
	}, func(l *AgentRefList) ([]AgentRef, string) { return l.Items, l.NextPageToken })
}

// Tokens yields the workspace's tokens.
func Tokens(ctx context.Context, api *API, params ListTokensParams) iter.Seq2[Token, error] {
	return pages(params.PageToken, func(token *string) (*TokenList, error) {
		params.PageToken = token
		res, err := Expect(api.ListTokensWithResponse(ctx, &params))
		return listOf(res, err, func(r *ListTokensResponse) *TokenList { return r.JSON200 })
	}, func(l *TokenList) ([]Token, string) { return l.Items, l.NextPageToken })
}

// listOf is an answer's list, or why there is none.
func listOf[R, L any](res *R, err error, list func(*R) *L) (*L, error) {
	if err != nil {
		return nil, err
	}
	if l := list(res); l != nil {
		return l, nil
	}
	return nil, fmt.Errorf("client: the server answered without a list")
}

// pages yields the items of page after page, from the page token start.
func pages[L, T any](start *string, fetch func(token *string) (*L, error), items func(*L) ([]T, string)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		token := start
		for {
			list, err := fetch(token)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			page, next := items(list)
			for _, item := range page {
				if !yield(item, nil) {
					return
				}
			}
			if next == "" {
				return
			}
			if token != nil && next == *token {
				var zero T
				yield(zero, fmt.Errorf("client: the server gave page token %q again", next))
				return
			}
			token = &next
		}
	}
}
