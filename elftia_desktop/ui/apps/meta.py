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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from elftia_desktop.bridge.results_explore import ResourceContent, ResourceRead

APP_MIME_TYPE = "text/html;profile=mcp-app"
"""The mime type of an MCP App's HTML view."""
PROTOCOL_VERSION = "2026-01-26"
"""The version of the Apps dialect this host speaks (the extension's stable release)."""

_ORIGIN = re.compile(r"^(https?|wss?)://(\*\.)?[A-Za-z0-9.-]+(:[0-9]{1,5})?/?$")
"""An origin a policy may name: scheme, host (optionally ``*.`` for subdomains), port."""
_NONE, _SELF = "'none'", "'self'"
_DOCTYPE = re.compile(r"^\s*<!doctype[^>]*>", re.IGNORECASE)
CSP_KEYS = ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")
"""The kinds of origin a ``_meta.ui.csp`` declares, in :class:`ViewPolicy`'s field order."""


def resource_uri_of(tool: Mapping[str, Any]) -> str | None:
    """The ``ui://`` resource a tool (as JSON) points at in ``_meta.ui.resourceUri``; None without one."""
    meta = tool.get("_meta")
    uri = ui_meta(meta).get("resourceUri")
    if uri is None and isinstance(meta, Mapping):
        uri = meta.get("ui/resourceUri")  # the spec's deprecated flat form
    return uri if isinstance(uri, str) and uri.startswith("ui://") else None


def visible_to_app(tool: Mapping[str, Any]) -> bool:
    """Whether a view may call the tool: ``_meta.ui.visibility`` absent, empty, or naming ``"app"``."""
    visibility = ui_meta(tool.get("_meta")).get("visibility")
    return not isinstance(visibility, list) or not visibility or "app" in visibility


def ui_meta(meta: object) -> Mapping[str, object]:
    """The ``ui`` entry of a tool's or a resource content's ``_meta`` (empty when absent or malformed)."""
    ui = meta.get("ui") if isinstance(meta, Mapping) else None
    return ui if isinstance(ui, Mapping) else {}


def view_content(read: ResourceRead, uri: str) -> ResourceContent:
    """The content of a read ``ui://`` resource that is the view; ValueError says what is wrong."""
    if not read.contents:
        raise ValueError(f"{uri}: the server returned no contents")
    content = next((c for c in read.contents if c.uri == uri), read.contents[0])
    mime = content.mime_type or ""
    if mime.replace(" ", "").lower() != APP_MIME_TYPE:
        raise ValueError(f"{uri}: mimeType is {mime or 'missing'!r}; an MCP App view is {APP_MIME_TYPE!r}")
    return content


def view_html(content: ResourceContent) -> str:
    """The view's HTML from ``text`` or base64 ``blob``; ValueError when neither holds HTML."""
    if content.text is not None:
        return content.text
    if content.blob is not None:
        try:
            return base64.b64decode(content.blob, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError) as exc:
            raise ValueError(f"{content.uri}: blob is not base64 UTF-8 HTML ({exc})") from exc
    raise ValueError(f"{content.uri}: the content has neither text nor blob")


def declared_origins(csp: object, key: str) -> tuple[list[str], list[str]]:
    """``csp[key]`` (a view's ``_meta.ui.csp`` as declared) split into the origins kept and the entries dropped."""
    entries = csp.get(key) if isinstance(csp, Mapping) else None
    if not isinstance(entries, list):
        return [], []
    kept = [e.rstrip("/") for e in entries if isinstance(e, str) and _ORIGIN.match(e)]
    dropped = [str(e) for e in entries if not (isinstance(e, str) and _ORIGIN.match(e))]
    return kept, dropped


@dataclass(frozen=True)
class ViewPolicy:
    """What a view's ``_meta.ui.csp`` allows, read safely: the origins of each kind, and the entries dropped."""

    connect: tuple[str, ...] = ()
    """``connectDomains``: where its scripts may fetch from and connect to."""
    resources: tuple[str, ...] = ()
    """``resourceDomains``: where its scripts, styles, images, fonts and media may come from."""
    frames: tuple[str, ...] = ()
    """``frameDomains``: what it may show in frames."""
    base_uris: tuple[str, ...] = ()
    """``baseUriDomains``: what its ``<base>`` may name."""
    dropped: tuple[str, ...] = ()
    """Declared entries that are not plain origins (ignored)."""

    @classmethod
    def of(cls, csp: object) -> ViewPolicy:
        """The policy of a declared ``csp`` (None or malformed: no network, no frames)."""
        kinds = [declared_origins(csp, key) for key in CSP_KEYS]
        connect, resources, frames, base_uris = (tuple(origins) for origins, _ in kinds)
        dropped = tuple(entry for _, entries in kinds for entry in entries)
        return cls(connect, resources, frames, base_uris, dropped)

    @property
    def header(self) -> str:
        """The Content-Security-Policy: the spec's directives, nothing undeclared allowed."""
        connect, assets, frames, bases = (
            " ".join(o) for o in (self.connect, self.resources, self.frames, self.base_uris)
        )
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


def content_security_policy(csp: object) -> str:
    """The policy of a view from its declared ``_meta.ui.csp`` (:attr:`ViewPolicy.header`)."""
    return ViewPolicy.of(csp).header


def with_policy(document: str, policy: str) -> str:
    """``document`` with the policy as its first element (after a doctype), before any of its own markup."""
    tag = f'<meta http-equiv="Content-Security-Policy" content="{html.escape(policy, quote=True)}">'
    doctype = _DOCTYPE.match(document)
    if doctype is None:
        return "<!doctype html>" + tag + document
    return document[: doctype.end()] + tag + document[doctype.end() :]
