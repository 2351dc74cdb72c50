"""The gateway: one MCP server (stdio or Streamable HTTP) that serves an agent's servers to other apps.

``elftia-mcp serve`` runs it. Tools and prompts are renamed ``server__name`` (provider-safe),
resources keep their URIs; every request is routed through a pool (``McpService``): the pool host's
when one runs (``host/``, which hosts this gateway and keeps the servers for every app), else this
process's own, whose servers start on the first request that needs them and stop with the gateway.

Modules:

- ``announce``: What the gateway announces in its ``initialize`` answer, without the SDK.
- ``approval``: Who the gateway asks before a tool that is not auto-approved runs.
- ``catalog``: What the gateway serves, gathered from the servers in scope and kept until something changes.
- ``command``: The command line other apps run to start this installation's gateway.
- ``core``: The gateway's requests: each one routed through the pool to the server that owns it.
- ``http``: The gateway over Streamable HTTP, on 127.0.0.1 by default, behind a bearer token.
- ``http_answers``: A POST whose event stream would carry nothing but its answer is answered with that answer as
  plain JSON.
- ``http_address``: Where the HTTP gateway listens: ``--http [HOST:]PORT`` parsed, its listening socket, the
  host's endpoint.
- ``http_install``: The gateway's entry for apps that accept HTTP servers: the pool host's URL and the
  ``Authorization`` header.
- ``hub``: Hub mode: two meta-tools instead of every tool, so hundreds of tools cost a few hundred tokens.
- ``input_rounds``: Questions from a downstream server to a 2026-07-28 client of the gateway: ``input_required``
  rounds.
- ``install``: Writing the gateway's one entry into another app's MCP config, and taking it out again.
- ``scope``: Which servers and tools the gateway serves: an agent's (its MCP mode, servers and tool selection),
  or, without an agent, every active server (an agent in ``auto`` mode).
- ``server``: The upstream MCP server of the gateway, on the SDK's low-level ``Server``.
- ``skills``: Skills over MCP (SEP-2640) served by the gateway: the accepted skills of the servers in scope.
- ``tasks``: Tasks forwarded both ways: an app behind the gateway gets a server's task handle and follows it
  through us.
- ``token``: The bearer token of the HTTP gateway: generated once, kept in the keyring (the vault).
- ``upstream``: The gateway's clients ("upstream"): who is connected, who asked what, and talking back to them.
- ``watch``: Noticing changes of the config (and the agent) while the gateway runs.
"""
