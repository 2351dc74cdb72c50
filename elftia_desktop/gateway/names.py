"""Gateway names ``server__item`` for tools and prompts, provider-safe, with the map back.

The rules are the loader's (:mod:`elftia_desktop.tools.names`): ``[A-Za-z0-9_-]``, at most 64
characters, and (for Gemini) a letter or ``_`` first; a name that had to be cut or that collides
gets a short stable hash of its identity (server id + original name).
"""

from __future__ import annotations

from collections.abc import Sequence

from elftia_desktop.tools.names import ToolRef, assign_names, sanitize_name

SEPARATOR = "__"


def preferred_name(server_name: str, item_name: str) -> str:
    """``server__item`` with only the characters every provider allows, a letter or ``_`` first."""
    base = sanitize_name(f"{server_name}{SEPARATOR}{item_name}", "openai")
    return base if base[0].isalpha() or base[0] == "_" else "_" + base


def gateway_names(items: Sequence[tuple[str, str, str]]) -> dict[str, ToolRef]:
    """``{gateway name: ToolRef(server_id, original name)}`` for ``(server_id, server_name, name)`` items.

    The order of ``items`` is kept (dicts are ordered); the names are unique.
    """
    wanted = [(preferred_name(server_name, name), ToolRef(server_id, name)) for server_id, server_name, name in items]
    names = assign_names(wanted, "openai")
    return {name: ref for name, (_, ref) in zip(names, wanted, strict=True)}
