"""MCP Apps (the ``io.modelcontextprotocol/ui`` extension): which tools a model may be given.

A tool names the parties that may see it in ``_meta.ui.visibility``, a list of ``"model"`` and
``"app"``; absent or empty means both. Servers list every tool to every client and the spec puts
the filtering on the host: a tool whose visibility leaves out ``"model"`` (an "app-only" tool,
called by the app's view) must never be in a model's tool list. Elftia keeps such tools out of
what agents, provider formats, the tool picker, the engine and the gateway's hub mode see; the
gateway's full mode passes them through unchanged for an Apps host behind it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

APPS_EXTENSION = "io.modelcontextprotocol/ui"
"""The extension's identifier (in ``capabilities.extensions``)."""
APP_ONLY = "app-only"
"""How a tool that only an app may see is labelled for people."""


def is_app_only(meta: Mapping[str, Any] | None) -> bool:
    """Whether a tool's ``_meta`` keeps it from models: ``ui.visibility`` is a non-empty list without ``"model"``."""
    ui = meta.get("ui") if isinstance(meta, Mapping) else None
    visibility = ui.get("visibility") if isinstance(ui, Mapping) else None
    return isinstance(visibility, list) and bool(visibility) and "model" not in visibility


def tool_is_app_only(tool: Any) -> bool:
    """:func:`is_app_only` of an SDK tool (``meta``) or a tool as JSON (``_meta``)."""
    meta = tool.get("_meta") if isinstance(tool, Mapping) else getattr(tool, "meta", None)
    return is_app_only(meta)
