"""The pool host: one process that runs each configured server once for this user and data folder.

The desktop window or a background daemon (``elftia-mcp daemon``) hosts the pool; gateways
(``elftia-mcp serve``) and CLI commands (``elftia-mcp call``) find it through its claim in the data
folder, attach to its local endpoint (``platform/endpoint.py``) and fall back to their own
in-process pool when no host can be reached. The modules an attaching command loads (``wire``,
``location``, ``attach``, ``shim``, ``client``) import only the standard library, so it starts fast;
the host itself runs on the SDK.

Modules:

- ``attach``: Connecting to the host of this data folder, starting the daemon on demand.
- ``client``: CLI commands run through the pool host: ``call``, ``test``, ``discover``, ``logs``, and the
  daemon's status and stop.
- ``clients``: Who is attached to the host: each client's app, process, start, the servers it called and its
  calls in flight.
- ``commands``: A ``command`` connection to the host: CLI requests and their answers.
- ``daemon``: The background daemon that hosts the pool when the window does not: ``elftia-mcp daemon run``.
- ``host``: The pool host: one ``McpService`` for a data folder, served to many clients on a local endpoint.
- ``http_endpoint``: The pool host serving Streamable HTTP itself: apps that speak HTTP reach the pool with no
  process between.
- ``http_link``: ``elftia-mcp serve --http`` run by hand while a host runs: the host listens where it asks.
- ``http_owner``: ``elftia-mcp serve --http`` run by hand while a pool host runs: the host listens, this process
  waits.
- ``http_sessions``: The pool host's HTTP sessions as its clients, and a line in the host's log for every
  request failing inside it.
- ``idle``: The daemon's idle stop, per server: a server nobody used for the idle time stops; the others stay
  warm.
- ``lease``: The data folder's host lock, and the window taking the pool over from a running daemon.
- ``links``: The host's side of its clients: MCP over a local connection, and who asks the user when a server
  asks.
- ``location``: Where the host of a data folder is found: its claim, in the data folder itself.
- ``shim``: ``elftia-mcp serve`` attached to the pool host: a plain forwarder of whole lines, one answer per
  request.
- ``shim_signals``: Running the attached gateway on this process's stdio: SIGTERM and SIGINT, and the one-line
  note.
- ``status``: What ``elftia-mcp daemon status`` shows of a host: itself, its clients, its servers and their
  processes.
- ``stdio_link``: ``elftia-mcp serve --no-daemon`` on stdio: the gateway served the way the host serves an
  attached one.
- ``upstreams``: Where the attached gateway's messages go: the pool host's socket, or this gateway's own pool in
  a child.
- ``wire``: The host's messages: one JSON object per line, and the versioned hello that opens a connection.
"""
