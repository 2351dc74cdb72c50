"""MCP tools to provider tool definitions (OpenAI, Anthropic, Gemini).

Modules:

- ``arguments``: The way back for a model's tool-call arguments: the form the MCP server declared.
- ``connected``: Tool listings that never start a server: only servers already connected are asked.
- ``convert``: The conversion driver shared by every provider format: tool sources, names, results.
- ``describe``: Keywords a provider does not take, said in words in the schema's description instead.
- ``loader``: The original ``ToolsLoader``: which MCP tools an agent gets, converted for its provider.
- ``names``: Provider-safe tool names and the map that leads them back to (server, tool).
- ``notes``: What a conversion changed or dropped, and why: the record behind ``elftia-mcp tools --lint``.
- ``preview``: What each provider would receive for a set of tools: the payload, the converter's notes, tokens.
- ``refs``: Inlining ``$ref`` with a guard against recursion and blow-up.
- ``schema``: ``process_json_schema`` and the schema helpers every provider pass shares.
- ``tokens``: Token counts of tool definitions, offline.
- ``formats/``: One converter module per provider.
"""
