"""The router's routes: one plain object per feature, held by ``bridge/router.py``'s ``McpRouter``.

Modules:

- ``agents``: Agent channels: the agents, which tools each gets, and what each provider would receive.
- ``app_info``: App channels: presets, the notices found at start, and install links.
- ``auth``: OAuth channels: sign in, sign out and the sign-in status of SSE/HTTP servers.
- ``dependencies``: Dependency channels: is a server's runtime installed, install it (with Cancel), uninstall
  it.
- ``explore``: Explore channels: try a tool (with progress and Cancel), get a prompt, read a resource.
- ``gateway``: Gateway channels: the entry other apps run, installing and removing it, and the HTTP token.
- ``icons``: Icons channel: the icon of any ``icons`` list (a registry entry's), fetched, kept and drawn like the
  cards'.
- ``integrations``: Integration channels: other apps' configs (detect, preview, import, export) and the
  ``claude`` CLI.
- ``pool``: Pool host channels: who is attached to the window's pool, and what quitting does with them.
- ``registry``: Registry channels: sync and search the registries, prepare an entry's install form, install it,
  open and install a ``.mcpb`` bundle, and find servers with a newer version.
- ``servers``: Server channels: the records, their connections, trust, logs and states.
- ``settings``: Settings channels: read and save the settings, where things live, the secrets backend, a backup.
- ``skills``: Skills channels (SEP-2640): a server's skills with their pin status, accepting a held-back one,
  reading a file.
- ``tool_review``: Tool pinning channels: which servers have tools held back, their review, and accepting them.
- ``tasks``: Task channels (the tasks extension): the pool's tasks for the Activity page, and cancelling one.
- ``tools``: Tool channels: list tools, call one, switch one off or its auto-approval.
"""
