"""Server and tool icons (the protocol's ``icons``): which one to use, and what bytes are acceptable.

An icon is ``{src, mimeType?, sizes?, theme?}``. Only ``https://`` addresses and ``data:`` URIs are
used (never ``http://``, ``file://`` or anything else a server could point at); the bytes must be
one of a few image types, no larger than :data:`MAX_ICON_BYTES`, and a raster image must start
with its format's signature. An SVG is drawn by Qt's SVG renderer, which runs no scripts and
loads nothing. Icons are kept in ``{data dir}/icons`` under a hash of their address. Pure: the
fetching is ``connections.icons``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote_to_bytes

from elftia_desktop.core.errors import ElftiaError

MAX_ICON_BYTES = 256 * 1024
"""The largest icon accepted (an SVG or a raster image)."""
EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/gif": "gif", "image/svg+xml": "svg"}
"""The image types accepted, and the file extension each is kept under."""
_SIGNATURES = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "image/webp": (b"RIFF",),
}


class IconError(ElftiaError):
    """An icon that is not used: the address, the type, the size or the bytes are not acceptable."""


def usable_src(src: str) -> bool:
    """Whether an icon's address may be used at all (``https:`` or ``data:``)."""
    lowered = src.strip().lower()
    return lowered.startswith("https://") or lowered.startswith("data:")


def pick_icon(icons: Iterable[Mapping[str, Any]] | None) -> Mapping[str, Any] | None:
    """The icon to show: the first usable one, preferring one for a light theme or none over a dark one."""
    usable = [i for i in icons or () if isinstance(i.get("src"), str) and usable_src(i["src"])]
    usable = [i for i in usable if _declared_type(i) in (None, *EXTENSIONS)]
    usable.sort(key=lambda i: i.get("theme") == "dark")
    return usable[0] if usable else None


def _declared_type(icon: Mapping[str, Any]) -> str | None:
    kind = icon.get("mimeType")
    return kind.split(";")[0].strip().lower() if isinstance(kind, str) else None


def decode_data_uri(src: str) -> tuple[str, bytes]:
    """The type and bytes of a ``data:`` URI; ``IconError`` naming what is wrong."""
    head, comma, payload = src.partition(",")
    if not comma or not head.lower().startswith("data:"):
        raise IconError("a data: icon must look like data:TYPE;base64,DATA")
    params = head[5:].split(";")
    kind = params[0].strip().lower() or "text/plain"
    if len(payload) > MAX_ICON_BYTES * 2:
        raise IconError(f"the icon is larger than {MAX_ICON_BYTES} bytes")
    try:
        data = base64.b64decode(payload, validate=True) if "base64" in params[1:] else unquote_to_bytes(payload)
    except (binascii.Error, ValueError) as exc:
        raise IconError(f"the data: icon is not valid base64: {exc}") from exc
    return kind, data


def check_icon(kind: str, data: bytes) -> str:
    """The file extension for acceptable icon bytes; ``IconError`` for a wrong type, size or content."""
    kind = kind.split(";")[0].strip().lower()
    extension = EXTENSIONS.get(kind)
    if extension is None:
        raise IconError(f"icons of type {kind!r} are not shown (only {', '.join(EXTENSIONS)})")
    if len(data) > MAX_ICON_BYTES:
        raise IconError(f"the icon is {len(data)} bytes; the limit is {MAX_ICON_BYTES}")
    if kind == "image/svg+xml":
        if b"<svg" not in data[:4096].lower():
            raise IconError("the SVG icon has no <svg> element")
    elif not data.startswith(_SIGNATURES[kind]):
        raise IconError(f"the icon's bytes are not a {kind} image")
    return extension


def icon_file(folder: Path, src: str, extension: str) -> Path:
    """Where the icon at ``src`` is kept (a hash of the address, so any address is a safe file name)."""
    return folder / f"{hashlib.sha256(src.encode()).hexdigest()[:32]}.{extension}"
