"""The connection pool over the mcp SDK's stdio, SSE and Streamable HTTP transports.

Modules:

- ``askers``: Whose question is it: a server's elicitation or sampling goes to the app whose request caused it.
- ``call_origin``: Who a tool call is made for, when it is not this process's own: an app attached to the pool
  host.
- ``callbacks``: The client side of server-to-client traffic: roots, elicitation, sampling, logs, list changes.
- ``connection``: One server connection, owned by one task.
- ``era_client``: Both protocol eras on one ``ClientSession``, with the SDK client's own connect and call
  policies.
- ``era_info``: What a connection agreed on: the protocol era, its version and both sides' capabilities.
- ``era_listen``: List changes from a modern server: ``subscriptions/listen`` (2026-07-28 servers send no
  unasked notifications).
- ``errors``: Translate SDK, anyio, httpx2 and OS exceptions into the app's errors (``core/errors.py``).
- ``events``: The service's events, one frozen dataclass each, and a small Qt-free emitter typed by event class.
- ``features``: What a server offers beyond tools: prompts, resources, completions and log levels.
- ``icons``: A connected server's icon (``serverInfo.icons``), fetched once and kept in ``{data dir}/icons``.
- ``listing``: Listing what a server offers (every page) and converting SDK results at the boundary.
- ``live_calls``: Tool calls in flight by call id: their progress goes out as events, and they can be cancelled.
- ``logs``: Per-server log: stderr lines of stdio servers and the server's ``notifications/message``.
- ``oauth_callback``: The loopback server that receives the browser's redirect at the end of a sign-in.
- ``oauth_dpop``: DPoP (RFC 9449) on the SDK's OAuth providers: proofs at the token endpoint and the resource,
  nonce retries.
- ``oauth_enterprise``: Enterprise-managed authorization (SEP-990): the SDK's ``IdentityAssertionOAuthProvider``
  and its leg 1.
- ``oauth_gate``: Who may sign in to a server, and when: the gate of one server's OAuth sign-in, in a light module.
- ``oauth_hooks``: The hook every SDK OAuth provider of ours carries: a failure inside the flow is recorded on
  the sign-in gate.
- ``oauth_prompt``: Showing a person the authorization URL: printed on its own line, and the browser where there
  is a display.
- ``oauth_provider``: The SDK's OAuth providers for a server record.
- ``oauth_storage``: The SDK's ``TokenStorage`` on the secrets vault: one server's OAuth tokens and registered
  client.
- ``placeholders``: Placeholders in imported server configs, expanded when a server starts.
- ``pool``: The connection pool: one entry per server with its state, connection, log and sign-in gate.
- ``probe``: Trying servers: Test (connect and list tools), Test of an unsaved server, and Discover (everything
  offered).
- ``process_tracker``: The one tracker of every server process the app starts, its runtime file, and an earlier
  run's leftovers.
- ``records``: The server records as the service reads them: the config store's snapshot, indexed by id.
- ``sandbox``: Starting a stdio server inside its sandbox: one call between the command line and the spawn.
- ``sandbox_proxy``: The HTTP proxy a sandboxed server reaches the network through: only the hosts its profile
  allows.
- ``sdk_light``: Importing the SDK's client modules without its package ``__init__`` files, for a fast CLI
  start.
- ``server_edits``: What an edit of the saved servers means for their connections: connect, reconnect,
  disconnect, tell.
- ``server_tools``: The servers' tools: listing them (through the :class:`ToolCache`), their definitions,
  whether one may be called.
- ``service``: ``McpService``: the MCP side of the app, a small object holding parts with one job each.
- ``sign_in``: Signing in to OAuth servers: sign in, sign out, sign-in status, and actions that sign in in
  place.
- ``skills``: Skills over MCP (SEP-2640) from a saved server: ``skills/list``, ``skills/get`` and verified
  reads.
- ``stdio_process``: The stdio transport: runs a server in its own kill scope and talks JSON-RPC over its pipes.
- ``task_book``: The tasks the pool follows, kept in the data folder so the next pool host finds them.
- ``task_calls``: Task-augmented tool calls (the ``io.modelcontextprotocol/tasks`` extension), followed to
  their result.
- ``task_runner``: How the pool follows a call's task: polled in its own asyncio task, cancelled upstream.
- ``tasks``: Awaiting a task one has just cancelled without swallowing one's own cancellation.
- ``tool_cache``: The one home of the servers' tool lists: what was fetched, when, for which name, and when it
  goes stale.
- ``tool_calls``: Tool calls of the saved servers: checked against the tool list, bounded in time, reported as
  events.
- ``tool_guard``: Holds back a trusted server's changed or new tools until the user reviews them.
- ``transports``: Opening a server's transport: stdio (our process-group runner), SSE and Streamable HTTP (the
  SDK's).
"""
