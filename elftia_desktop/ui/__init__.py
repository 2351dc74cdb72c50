"""The Qt user interface.

Modules:

- ``error_presenter``: The one way a page or dialog shows a failed request: plain text escaped, details behind
  Details.
- ``lint_words``: Plain words for the tool lint's findings, so a banner says what was found, not only where.
- ``main_window``: The main window: a sidebar of pages, the page stack and a status bar with a busy indicator.
- ``probe``: A diagnostics probe for the packaged app's smoke test and start-up benchmark.
- ``secret_words``: How the window speaks of where secrets go: true whether or not an OS keyring works.
- ``server_flows``: The flows that start on the servers page and open dialogs: add, edit, paste JSON, discover,
  install links.
- ``single_instance``: One app per data folder: a second start hands its arguments to the running window over a
  local socket.
- ``theme``: Colours and the application style sheet, derived from the system palette (light or dark).
- ``apps/``: The MCP Apps view of the Try dialog: a tool's ``ui://`` resource rendered in QtWebEngine.
- ``dialogs/``: Dialogs.
- ``models/``: Qt item models for the views (model/view, so long lists stay fast).
- ``pages/``: Pages shown in the main window's stack.
- ``widgets/``: Reusable widgets.
"""
