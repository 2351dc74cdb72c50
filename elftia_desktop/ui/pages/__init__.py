"""Pages shown in the main window's stack.

Modules:

- ``activity_page``: ``ActivityPage``: which apps use Elftia's servers through the window's pool host, and what
  they call.
- ``agents_page``: ``AgentsPage``: the agents, each with its MCP mode, servers, tools and the size of their
  definitions.
- ``browse_page``: ``BrowsePage``: find servers in the MCP registries (and the featured ones shipped with the
  app), read an entry's details, fill its inputs and install it; "Install bundle…" opens a ``.mcpb`` file.
- ``claude_panel``: ``ClaudePanel``: the ``claude`` CLI (Claude Code): is it installed, its servers, push ours,
  pull its.
- ``dependencies_page``: ``DependenciesPage``: every runtime servers are started with, found or not; install,
  cancel, uninstall.
- ``export_panel``: ``ExportPanel``: a selection of our servers in another app's format, to a file or into the
  app's config.
- ``import_export_page``: ``ImportExportPage``: bring servers from other apps, send ours to them, and the
  ``claude`` CLI.
- ``import_panel``: ``ImportPanel``: the configs other apps keep on this machine, a preview per server, Import.
- ``page_frame``: The frame every sidebar page shares (as on the servers page): title and summary, actions,
  notice bar; and :class:`FirstShow`, which loads a page once it is first on screen.
- ``servers_actions``: The servers page's Test and Remove, and what an action on a server removed elsewhere
  does.
- ``servers_auth``: The servers page's OAuth part: Sign in / Sign out on the cards, and the sign-in notice.
- ``servers_empty``: What the Servers page shows with no servers: where to start (presets, other apps' servers,
  pasted JSON).
- ``servers_page``: ``McpServersPage``: every configured server as a card with its live state and actions.
- ``settings_page``: ``SettingsPage``: timeouts, log size, start-up, theme, folders, the secrets backend and a
  backup.
- ``settings_sections``: The cards of the Settings page: connections, appearance, folders, secrets, backup.
"""
