"""Serving: the answerer shared by the HTTP service and the MCP server, and the agent-facing metadata."""
