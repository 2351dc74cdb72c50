"""Install links: ``elftia://install-mcp?name=NAME&config=CONFIG`` to one untrusted server.

``CONFIG`` is JSON, base64url-encoded (padding optional, the way Cursor's install links carry it)
or plain (percent-encoded). It is one server entry (``{"command": ..., "args": [...]}`` or
``{"url": ...}``, named by the ``name`` parameter) or the ``mcpServers`` form that READMEs show
(``{"mcpServers": {"NAME": {...}}}``, where ``name`` may pick one of several entries). Entries
take the shapes :mod:`elftia_desktop.core.server_json` accepts.

The result is an ``McpServerInput`` with ``isTrusted: false`` and ``installSource: "protocol"``:
a link never runs anything; the user sees the filled-in form and confirms. A malformed link raises
:class:`InstallLinkError` saying what is wrong with it.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from elftia_desktop.core.errors import ConfigError
from elftia_desktop.core.models import McpServerInput
from elftia_desktop.core.server_json import entry_to_input, server_entries
from elftia_desktop.core.text_rules import quoted
from elftia_desktop.platform.associations import URL_SCHEME

SCHEME = URL_SCHEME
"""``elftia``: the scheme the packages and the first start register (``platform/associations.py``)."""
ACTION = "install-mcp"
MAX_LINK_CHARS = 64_000
"""Longer links are refused before decoding (a server definition is a few hundred characters)."""
_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")
EXAMPLE = "elftia://install-mcp?name=NAME&config=BASE64URL_JSON"


class InstallLinkError(ConfigError):
    """An install link is malformed; the message says which part and what was expected."""


def is_install_link(text: str) -> bool:
    """True when ``text`` is a link of our scheme (``elftia:...``), well-formed or not."""
    return text.strip().lower().startswith(f"{SCHEME}:")


def find_link(argv: Sequence[str]) -> str | None:
    """The first ``elftia:`` link among command-line arguments (``argv`` without the program)."""
    return next((arg.strip() for arg in argv if is_install_link(arg)), None)


def parse_install_link(link: str) -> McpServerInput:
    """The server an install link describes, untrusted; raises :class:`InstallLinkError`."""
    if len(link) > MAX_LINK_CHARS:
        raise InstallLinkError(f"The link is {len(link)} characters long; at most {MAX_LINK_CHARS} are accepted")
    parts = urlsplit(link.strip())
    if parts.scheme.lower() != SCHEME:
        shown = parts.scheme or "(none)"
        raise InstallLinkError(f"Not an Elftia link: the scheme is {quoted(shown)}, expected {EXAMPLE}")
    action = (parts.netloc or parts.path.strip("/")).lower()
    if action != ACTION:
        raise InstallLinkError(f"Unknown link action {quoted(action or '(none)')}: expected {EXAMPLE}")
    query = _strict_query(parts.query)
    raw = _single(query, "config")
    if raw is None or not raw.strip():
        raise InstallLinkError(f"The link has no 'config' parameter: expected {EXAMPLE}")
    name = (_single(query, "name") or "").strip()
    name, entry = _pick_entry(decode_config(raw), name)
    try:
        server = entry_to_input(name, entry)
    except ValueError as exc:
        raise InstallLinkError(f"The link's server {quoted(name)} is not valid: {exc}") from None
    return server.model_copy(update={"is_trusted": False, "install_source": "protocol"})


def _strict_query(query: str) -> dict[str, list[str]]:
    """The query's parameters; percent-escapes that do not decode as UTF-8 are refused, not replaced."""
    try:
        return parse_qs(query, keep_blank_values=True, encoding="utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        bad = exc.object[exc.start : exc.end]
        escaped = "".join(f"%{byte:02X}" for byte in bad) if isinstance(bad, bytes) else repr(bad)
        raise InstallLinkError(
            f"The link's query has percent-escapes that are not UTF-8 text ({escaped}); "
            "re-create the link with the text encoded as UTF-8"
        ) from None


def decode_config(raw: str) -> Any:
    """The JSON value of the ``config`` parameter: plain JSON, or base64url of JSON."""
    text = raw.strip()
    if not text.startswith(("{", "[")):
        text = _base64url(text)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InstallLinkError(
            f"The link's 'config' is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None


def _base64url(text: str) -> str:
    compact = "".join(text.split()).replace("+", "-").replace("/", "_").rstrip("=")
    try:
        if not _BASE64URL.fullmatch(compact) or len(compact) % 4 == 1:
            raise ValueError(compact)
        data = base64.urlsafe_b64decode(compact + "=" * (-len(compact) % 4))
    except (binascii.Error, ValueError):
        raise InstallLinkError(
            "The link's 'config' is neither JSON nor base64url-encoded JSON (it has characters or a length "
            "base64url cannot have)"
        ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InstallLinkError("The link's 'config' decodes from base64url to bytes that are not UTF-8 text") from None


def _single(query: dict[str, list[str]], key: str) -> str | None:
    values = query.get(key)
    if not values:
        return None
    if len(values) > 1:
        raise InstallLinkError(f"The link has {len(values)} {quoted(key)} parameters; it may have one")
    return values[0]


def _pick_entry(data: Any, name: str) -> tuple[str, dict[str, Any]]:
    """``(name, entry)``: the one server of the config, or the one ``name`` picks from several."""
    if isinstance(data, dict) and ({"command", "url", "serverUrl", "httpUrl"} & data.keys()):
        entry_name = name or str(data.get("name") or "").strip()
        if not entry_name:
            raise InstallLinkError("The link has no 'name' parameter and its config names no server")
        return entry_name, data
    try:
        pairs = server_entries(data)
    except ConfigError as exc:
        raise InstallLinkError(f"The link's 'config' holds no server: {exc}") from None
    if name:
        picked = [(n, e) for n, e in pairs if n == name]
        if not picked:
            names = ", ".join(n for n, _ in pairs) or "none"
            raise InstallLinkError(f"The link names the server {quoted(name)}, but its config has only: {names}")
        pairs = picked
    if len(pairs) != 1:
        names = ", ".join(n for n, _ in pairs)
        raise InstallLinkError(
            f"The link's 'config' has {len(pairs)} servers ({names}); an install link adds one "
            "(give its 'name' to pick it)"
        )
    entry_name, entry = pairs[0]
    if not isinstance(entry, dict):
        raise InstallLinkError(f'The link\'s server {quoted(entry_name)} is not an object with "command" or "url"')
    return entry_name, entry


def make_install_link(name: str, entry: dict[str, Any]) -> str:
    """The base64url install link for one server entry (for READMEs and tests)."""
    payload = json.dumps(entry, separators=(",", ":")).encode("utf-8")
    encoded = base64.urlsafe_b64encode(payload).decode("ascii").rstrip("=")
    return f"{SCHEME}://{ACTION}?name={quote(name)}&config={encoded}"
