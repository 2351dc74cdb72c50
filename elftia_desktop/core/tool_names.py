"""Tool names: the one sanitizer behind every tool id and provider name (DESIGN.md §5).

* ``MCPTool.id`` is ``mcp__{server}__{tool}`` with every non-alphanumeric character as ``_``
  (:func:`tool_id`; the pool's listing uses it).
* Names prefixed by the server, ``{server}__{item}``: the engine's direct (built-in) tools and
  the gateway's tools and prompts (:func:`prefixed_names`). They are valid for every provider
  (``[A-Za-z0-9_-]``, at most 64 characters, a letter or ``_`` first, as Gemini wants); a name
  that had to be cut, or that collides, gets a short stable hash of its identity.
* The loader's provider names (:mod:`elftia_desktop.tools.names`) use the same
  :func:`sanitize_name` and :func:`assign_names` under each provider's rule.

Pure functions, no I/O: every layer may use them.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

NameRule = Literal["openai", "anthropic", "gemini"]
"""Which provider's tool-name rule a name must follow."""
IdRule = Literal["id", "openai", "anthropic", "gemini", "parameter"]
"""A provider's rule; ``id``: the characters of ``MCPTool.id`` (letters and digits, no folding);
``parameter``: a Gemini parameter name (letters, digits and ``_``, a letter or ``_`` first)."""

MAX_NAME_LENGTH = 64
HASH_LENGTH = 8
SEPARATOR = "__"
"""Between the server's name and the tool's (or prompt's) name."""
_INVALID: dict[IdRule, re.Pattern[str]] = {
    "id": re.compile(r"[^A-Za-z0-9]"),
    "openai": re.compile(r"[^a-zA-Z0-9_-]"),
    "anthropic": re.compile(r"[^a-zA-Z0-9_-]"),
    "gemini": re.compile(r"[^a-zA-Z0-9_.:-]"),
    "parameter": re.compile(r"[^a-zA-Z0-9_]"),
}


@dataclass(frozen=True)
class ToolRef:
    """Where a provider's tool name leads: the server and the tool's original MCP name."""

    server_id: str
    tool_name: str


def short_hash(text: str) -> str:
    """A short, stable hash of ``text`` (hex, :data:`HASH_LENGTH` characters)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:HASH_LENGTH]


def sanitize_name(name: str, rule: IdRule) -> str:
    """``name`` with only the characters ``rule`` allows, others as ``_`` (not yet cut to length).

    Under a provider's rule, unicode is folded to ASCII first (``é`` → ``e``), an empty result is
    ``tool`` (``_`` for a parameter) and under ``gemini`` and ``parameter`` a name gets a ``_`` in
    front unless it starts with a letter or ``_``.
    Under ``id`` every character but an ASCII letter or digit becomes ``_``, nothing else changes.
    """
    if rule == "id":
        return _INVALID["id"].sub("_", name)
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    clean = _INVALID[rule].sub("_", folded) or ("_" if rule == "parameter" else "tool")
    if rule in ("gemini", "parameter") and not (clean[0].isalpha() or clean[0] == "_"):
        clean = "_" + clean
    return clean


def tool_id(server_name: str, tool_name: str) -> str:
    """``MCPTool.id``: ``mcp__{server}__{tool}`` with every non-alphanumeric character as ``_``."""
    return f"mcp{SEPARATOR}{sanitize_name(server_name, 'id')}{SEPARATOR}{sanitize_name(tool_name, 'id')}"


def with_hash(base: str, identity: str, salt: int = 0) -> str:
    """``base`` cut so that ``_`` plus the hash of ``identity`` fits in 64 characters."""
    digest = short_hash(identity if not salt else f"{identity}#{salt}")
    return f"{base[: MAX_NAME_LENGTH - HASH_LENGTH - 1]}_{digest}"


def assign_names(wanted: Iterable[tuple[str, ToolRef]], rule: NameRule) -> list[str]:
    """Provider names for tools, in order; ``wanted`` holds (preferred name, identity) pairs.

    A name is sanitised; a name longer than 64 characters is cut and gets a hash; when several
    tools end up with the same name, every one of them gets a hash of its own identity (so the
    result does not depend on which tool came first). The names returned are unique.
    """
    items = list(wanted)
    bases = [sanitize_name(name, rule) for name, _ in items]
    counts: dict[str, int] = {}
    for base in bases:
        counts[base] = counts.get(base, 0) + 1
    taken = {b for b in bases if counts[b] == 1 and len(b) <= MAX_NAME_LENGTH}
    result: list[str] = []
    for base, (_, ref) in zip(bases, items, strict=True):
        if counts[base] == 1 and len(base) <= MAX_NAME_LENGTH:
            result.append(base)
            continue
        identity = f"{ref.server_id}\x00{ref.tool_name}"
        salt = 0
        candidate = with_hash(base, identity)
        while candidate in taken:
            salt += 1
            candidate = with_hash(base, identity, salt)
        taken.add(candidate)
        result.append(candidate)
    return result


def prefixed_name(server_name: str, item_name: str) -> str:
    """``server__item`` with only the characters every provider allows, a letter or ``_`` first (not cut)."""
    base = sanitize_name(f"{server_name}{SEPARATOR}{item_name}", "openai")
    return base if base[0].isalpha() or base[0] == "_" else "_" + base


def prefixed_names(items: Sequence[tuple[str, str, str]]) -> dict[str, ToolRef]:
    """``{server__item: ToolRef(server_id, item)}`` for ``(server_id, server_name, item)`` triples.

    The order of ``items`` is kept (dicts are ordered); the names are unique, at most 64
    characters, and one that was cut or collided ends in a hash of ``server_id`` and ``item``.
    """
    wanted = [(prefixed_name(server_name, name), ToolRef(server_id, name)) for server_id, server_name, name in items]
    names = assign_names(wanted, "openai")
    return {name: ref for name, (_, ref) in zip(names, wanted, strict=True)}
