// Package mcpserver serves an agent's sandbox tools as a Model Context
// Protocol server over the Streamable HTTP transport, so that any agent
// framework that speaks MCP can use the agent's sandbox by URL.
//
// It is HTTP only, like the api package that mounts it: the caller has
// authenticated the request, rate-limited it and found its agent; this
// package holds the MCP sessions, maps each to a thread, starts and
// completes that thread's runs, and calls the tools of run.Tools under the
// agent's binding, asking the person for approval by elicitation.
package mcpserver
