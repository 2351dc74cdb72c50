"""Dialogs.

Modules:

- ``approval_dialog``: Asks the user whether a tool that is not auto-approved may run: allow once, always allow,
  or deny.
- ``bundle_dialog``: ``BundleDialog``: a ``.mcpb`` bundle's manifest (name, author, tools, signature), its
  ``user_config`` form and what it runs; Install unpacks it and adds the server untrusted.
- ``diff_dialog``: ``DiffDialog``: what writing into another app's config would change, shown before anything is
  written.
- ``discover_activity``: The Activity tab of the discover panel: a server's recent tool calls at a glance.
- ``discover_dialog``: The discover panel of one server: its tools, prompts, resources and its recent activity.
- ``discover_icons``: Discover's icons: the server's (``serverInfo.icons``) before its name, each tool's before
  the tool's name.
- ``discover_prompts``: The Prompts tab of the discover panel: pick a prompt, fill in its arguments, see the
  messages.
- ``discover_resources``: The Resources tab of the discover panel: read a resource or fill in a template and
  read it.
- ``discover_skills``: The Skills tab of the discover panel (Skills over MCP, SEP-2640).
- ``elicitation_dialog``: A server asks the user for input (MCP elicitation): one field per property of its
  schema.
- ``explore_pane``: What the Prompts and Resources tabs share: the list beside a detail pane with one action.
- ``gateway_dialog``: ``GatewayDialog``: the "Use in other apps" panel of one agent in a window of its own.
- ``json_error_marks``: Where a JSON syntax error is in the paste-JSON editor: its document position, and the
  marks that show it (the whole line tinted, the spot itself in the error colour).
- ``json_import_dialog``: The paste-JSON dialog (``mcp:addJson``): live preview, conflicts resolved per server,
  results.
- ``json_import_results``: The last page of the paste-JSON dialog: what happened to each server.
- ``json_preview``: What the paste-JSON dialog shows and submits, as pure functions over the pasted text.
- ``json_preview_table``: The paste-JSON dialog's preview table: one row a server, even heights, the action in
  the last column.
- ``logs_dialog``: A server's log: stderr and protocol log lines, live, searchable, copyable.
- ``mcp_manage_dialog``: ``McpManageDialog``: which MCP servers and tools one agent gets (the original's
  association dialog).
- ``preset_values``: The values a preset needs (its ``arguments``), asked as fields of their own in the add
  form.
- ``quit_dialog``: ``QuitDialog``: other apps use Elftia's servers; quitting keeps them running in the
  background, or stops them.
- ``server_form``: ``McpServerForm``: add or edit one MCP server.
- ``server_form_auth``: The server form's Authentication section (SSE/HTTP): None, a header, or OAuth sign-in.
- ``server_form_fields``: Where the add form shows a draft's field error, and how a preset's environment variable
  becomes a row.
- ``server_form_layout``: The widgets and layout of ``McpServerForm``: fields, inline error labels, the button
  bar.
- ``server_form_params``: The add/edit form's fields as a typed ``ServerDraft`` (a preset's ``{key}`` placeholders
  filled in): what ``ServerDraft.check`` turns into the ``McpServerInput`` of ``mcp:add`` or the change of
  ``mcp:update``.
- ``server_form_parts``: Parts of the server form: the preset gallery, the transport switch, the dependency
  status and a folder picker. Each part is self-contained; ``server_form.py`` lays them out.
- ``server_form_sandbox``: The server form's Sandbox section (stdio): on or off, the paths it may read and
  write, its network.
- ``tool_review_dialog``: ``ToolReviewDialog``: the tools a trusted server changed since it was trusted, before
  they are served.
- ``trust_dialog``: Asks the user to confirm exactly what an untrusted (or changed) server will run.
- ``try_task``: The Try dialog's task: a call that became a task shows its state, and outlives the dialog.
- ``try_history``: The calls tried from the window in this app session, per server and tool, for re-running.
- ``try_tool_dialog``: ``TryToolDialog``: call one tool of a server from the window, like the MCP Inspector.
- ``uri_template``: RFC 6570 URI templates as resource templates use them: the variables, and filling them in.
- ``url_elicitation_dialog``: A server asks the user to open an address (URL-mode elicitation): the domain
  first, opened only on a click.
"""
