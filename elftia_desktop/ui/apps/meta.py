"""What an MCP App declares, read safely: the view's ``ui://`` URI, its HTML, its CSP and the host context.

Nothing here trusts the server: domains that are not plain origins are dropped (a policy is never
loosened by what a server writes), and an absent ``_meta.ui.csp`` gives the spec's restrictive default
(no network at all).
"""

from __future__ import annotations

import base64
import binascii
import html
import re
from collections.abc import Mapping
from typing import Any

APP_MIME_TYPE = "text/html;profile=mcp-app"
"""The mime type of an MCP App's HTML view."""
PROTOCOL_VERSION = "2026-01-26"
"""The version of the Apps dialect this host speaks (the extension's stable release)."""

_ORIGIN = re.compile(r"^(https?|wss?)://(\*\.)?[A-Za-z0-9.-]+(:[0-9]{1,5})?/?$")
"""An origin a policy may name: scheme, host (optionally ``*.`` for subdomains), port."""
_NONE, _SELF = "'none'", "'self'"
_DOCTYPE = re.compile(r"^\s*<!doctype[^>]*>", re.IGNORECASE)


def resource_uri_of(tool: Mapping[str, Any]) -> str | None:
    """The ``ui://`` resource a tool (as JSON) points at in ``_meta.ui.resourceUri``; None without one."""
    uri = ui_meta(tool).get("resourceUri")
    meta = tool.get("_meta")
    if uri is None and isinstance(meta, Mapping):
        uri = meta.get("ui/resourceUri")  # the spec's deprecated flat form
    return uri if isinstance(uri, str) and uri.startswith("ui://") else None


def visible_to_app(tool: Mapping[str, Any]) -> bool:
    """Whether a view may call the tool: ``_meta.ui.visibility`` absent, empty, or naming ``"app"``."""
    visibility = ui_meta(tool).get("visibility")
    return not isinstance(visibility, list) or not visibility or "app" in visibility


def ui_meta(item: Mapping[str, Any]) -> dict[str, Any]:
    """A tool's or a resource content's ``_meta.ui`` (empty when absent or malformed)."""
    meta = item.get("_meta")
    ui = meta.get("ui") if isinstance(meta, Mapping) else None
    return dict(ui) if isinstance(ui, Mapping) else {}


def view_content(result: Mapping[str, Any], uri: str) -> dict[str, Any]:
    """The content of ``resources/read``'s result that is the view; ValueError says what is wrong."""
    contents = result.get("contents")
    if not isinstance(contents, list) or not contents:
        raise ValueError(f"{uri}: the server returned no contents")
    matching = [c for c in contents if isinstance(c, Mapping) and c.get("uri") == uri] or contents
    content = matching[0]
    if not isinstance(content, Mapping):
        raise ValueError(f"{uri}: the content is not an object")
    mime = str(content.get("mimeType") or "")
    if mime.replace(" ", "").lower() != APP_MIME_TYPE:
        raise ValueError(f"{uri}: mimeType is {mime or 'missing'!r}; an MCP App view is {APP_MIME_TYPE!r}")
    return dict(content)


def view_html(content: Mapping[str, Any]) -> str:
    """The view's HTML from ``text`` or base64 ``blob``; ValueError when neither holds HTML."""
    text = content.get("text")
    if isinstance(text, str):
        return text
    blob = content.get("blob")
    if isinstance(blob, str):
        try:
            return base64.b64decode(blob, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError) as exc:
            raise ValueError(f"{content.get('uri')}: blob is not base64 UTF-8 HTML ({exc})") from exc
    raise ValueError(f"{content.get('uri')}: the content has neither text nor blob")


def declared_origins(csp: Any, key: str) -> tuple[list[str], list[str]]:
    """``csp[key]`` split into the origins kept and the entries dropped (not a plain origin)."""
    entries = csp.get(key) if isinstance(csp, Mapping) else None
    if not isinstance(entries, list):
        return [], []
    kept = [e.rstrip("/") for e in entries if isinstance(e, str) and _ORIGIN.match(e)]
    dropped = [str(e) for e in entries if not (isinstance(e, str) and _ORIGIN.match(e))]
    return kept, dropped


def content_security_policy(csp: Any) -> str:
    """The policy of a view from its ``_meta.ui.csp``: the spec's directives, nothing undeclared allowed."""
    connect = " ".join(declared_origins(csp, "connectDomains")[0])
    assets = " ".join(declared_origins(csp, "resourceDomains")[0])
    frames = " ".join(declared_origins(csp, "frameDomains")[0])
    bases = " ".join(declared_origins(csp, "baseUriDomains")[0])
    directives = [
        "default-src 'none'",
        f"script-src 'self' 'unsafe-inline' {assets}",
        f"style-src 'self' 'unsafe-inline' {assets}",
        f"img-src 'self' data: {assets}",
        f"font-src 'self' data: {assets}",
        f"media-src 'self' data: {assets}",
        f"connect-src {connect or _NONE}",
        f"frame-src {frames or _NONE}",
        f"base-uri {bases or _SELF}",
        "object-src 'none'",
        "form-action 'none'",
    ]
    return "; ".join(" ".join(d.split()) for d in directives)


def with_policy(document: str, policy: str) -> str:
    """``document`` with the policy as its first element (after a doctype), before any of its own markup."""
    tag = f'<meta http-equiv="Content-Security-Policy" content="{html.escape(policy, quote=True)}">'
    doctype = _DOCTYPE.match(document)
    if doctype is None:
        return "<!doctype html>" + tag + document
    return document[: doctype.end()] + tag + document[doctype.end() :]
