"""Reusable widgets.

Modules:

- ``activity_chart``: ``ActivityChart``: a server's calls over time (bars) and their latency (a line), with
  QPainter.
- ``content_blocks``: Widgets for MCP content: text, images, audio, embedded resources, resource links, JSON
  trees.
- ``details_box``: The message box behind a "Details…" button: it opens with the full text already shown.
- ``elided``: A label and a button that shorten their one line of text with "…" to the width they get, instead
  of widening their parent (a long server name, a banner naming many tools).
- ``fixed_space``: Space reserved for text and controls that come and go, so nothing else moves under the
  pointer.
- ``gateway_panel``: ``GatewayPanel``: "Use in other apps" for one agent.
- ``inline_code``: Text from servers and registries (Markdown-ish) in a label: `code` spans shown as code, not
  as backticks.
- ``install_form``: The inputs form of an install (a registry entry or a ``.mcpb`` bundle), generated from its
  fields.
- ``key_value_editor``: A key/value editor with a per-row secret toggle (environment variables, HTTP headers).
- ``list_editor``: An editable, reorderable list of strings (a stdio server's arguments, one per row).
- ``notice_bar``: A dismissable message strip for results and errors, with a Details button.
- ``result_view``: ``ResultView``: the outcome of a tool call, a prompt or a resource read, block by block.
- ``runtime_card``: ``RuntimeCard``: one runtime on the Dependencies page: found or not, who needs it, install
  it.
- ``sandbox_denials``: What a server's sandbox blocked, each with one click to allow it and trust the server
  with it.
- ``server_card``: One server on the servers page: name, transport, scope, sandbox, live state and protocol,
  tools, switch, actions.
- ``server_card_text``: The texts of a server card's protocol chip (version, era, extensions) and of its
  last-call badge.
- ``server_checklist``: ``ServerChecklist``: our servers with a check box each, for choosing what to export or
  push.
- ``skill_picker``: ``SkillPicker``: which skills (Skills over MCP, SEP-2640) of its servers an agent gets, ticked
  like tools.
- ``sparkline``: A tiny bar chart of a server's latest calls: height is the latency (log scale), colour the
  outcome.
- ``state_badge``: A coloured dot with the connection state; the error reason shows on hover.
- ``task_list``: ``TaskList``: the tasks the pool follows and followed, with a Cancel for a running one.
- ``toggle_switch``: A compact on/off switch (a checkable button painted as a switch).
- ``tool_picker``: ``ToolPicker`` (the original's ``useMcpMode`` picker): which of its tools an agent gets.
- ``schema_form/``: A form generated from a JSON schema (see :mod:`.form`).
"""
