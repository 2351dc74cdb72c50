"""The MCP Apps view of the Try dialog: a tool's ``ui://`` resource rendered in QtWebEngine.

Modules:

- ``context``: The host context an MCP App view is given in ``ui/initialize``: our theme as the spec's CSS
  variables.
- ``dialect``: The host side of the ``ui/*`` dialect: tool calls through the pool with approval, size
  changes, links with consent.
- ``meta``: What an MCP App declares, read safely: the view's ``ui://`` URI, its HTML and its CSP.
- ``pane``: The Try dialog's App tab: the view rendered and wired to the dialect, or what is missing.
- ``web``: The QtWebEngine part: its own origins, a sandboxed frame and the message relay (imported only
  when PySide6-Addons is installed).
"""

from __future__ import annotations

from importlib.util import find_spec

APPS_EXTRA_HINT = "pip install 'elftia-desktop[apps]'"
"""What installs the view's engine (QtWebEngine, in PySide6-Addons); the app bundle includes it."""


def webengine_available() -> bool:
    """Whether QtWebEngine (PySide6-Addons) can be imported here."""
    try:
        return find_spec("PySide6.QtWebEngineWidgets") is not None
    except (ImportError, ValueError):
        return False
