"""The MCP Apps view of the Try dialog: a tool's ``ui://`` resource rendered in QtWebEngine.

``meta`` reads what the tool and the resource declare (the view's URI, its CSP, its HTML) and builds
the policy and the host context; ``dialect`` is the host side of the ``ui/*`` postMessage JSON-RPC
dialect (initialize, tool calls through the pool with approval, size changes, links with consent);
``web`` is the QtWebEngine part (its own URL schemes and profile, a sandboxed frame, the message
relay), imported only when PySide6-Addons is installed; ``pane`` is the widget the Try dialog shows.
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
