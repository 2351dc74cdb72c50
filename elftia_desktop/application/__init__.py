"""The application layer: one assembly point for the services and Qt-free actions on them.

:mod:`.services` opens everything (stores, secrets vault, agents, saved settings, ``McpService``)
for the window, every CLI command and the gateway. The action modules (:mod:`.servers`,
:mod:`.tools`, :mod:`.agents`, :mod:`.sign_in`, :mod:`.dependencies`, :mod:`.integrations`) return
typed results; the words a user reads are built from their fields in :mod:`.messages`.

Modules:

- ``agents``: Agent actions: resolving tool ids (``mcp__SERVER__TOOL``) against the live servers for a tool
  selection.
- ``dependencies``: Installing a server's runtime with Cancel: the running installs, kept on the service loop.
- ``integrations``: Writing our servers into another app's config file: plan the change, then write exactly what
  was shown.
- ``messages``: Every sentence the application's actions say, built from typed fields (never by re-parsing
  text).
- ``outside_edits``: Following the files another process changed (``elftia-mcp add/remove/disable``, another
  window).
- ``registry``: Servers from a registry or a ``.mcpb`` bundle: install one untrusted, re-pin one to a newer
  version.
- ``server_logs``: A server's log as ``elftia-mcp logs`` shows it, the same on the pool host and in a command's
  own pool.
- ``servers``: Actions on the saved servers: add, add pasted JSON, update, remove, trust.
- ``services``: The one assembly point: everything the window, the CLI and the gateway run on, opened and closed
  together.
- ``sign_in``: Sign-in actions for OAuth servers named by the user (name or id).
- ``tools``: Actions on one server's tools: hide or offer a tool, run it with or without asking.
"""
