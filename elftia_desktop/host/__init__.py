"""The pool host: one process that runs each configured server once for this user and data folder.

The desktop window or a background daemon (``elftia-mcp daemon``) hosts the pool; gateways
(``elftia-mcp serve``) and CLI commands (``elftia-mcp call``) find it through its claim in the data
folder, attach to its local endpoint (``platform/endpoint.py``) and fall back to their own
in-process pool when no host can be reached.

Modules: ``wire`` (the hello and the newline-delimited messages), ``location`` (the claim),
``attach`` (connecting, and starting the daemon on demand), ``shim`` (the gateway's stdio
forwarder), ``client`` (a CLI call through the host) — these import only the standard library, so
an attaching command starts fast — and ``host``, ``links``, ``daemon`` (the host itself, on the SDK).
"""
