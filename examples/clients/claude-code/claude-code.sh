#!/usr/bin/env sh
# Register botmesh-mcp with Claude Code for this project (stdio; npx fetches the prebuilt binary).
claude mcp add botmesh -- npx -y @botmesh/mcp
# With the documentation tools over a local docs tree (a clone of the repository's docs/):
#   claude mcp add botmesh -- npx -y @botmesh/mcp --docs /path/to/botmesh-mcp/docs
# A hosted server (Streamable HTTP with a bearer token):
#   claude mcp add --transport http botmesh https://mcp.example.com/mcp --header "Authorization: Bearer $BOTMESH_MCP_TOKEN"
