"""Serving: the answerer shared by the HTTP service and the MCP server, the agent-facing metadata, and the
HTTP service's guards (Host check, bearer token, rate limit) and error-proof JSON."""
