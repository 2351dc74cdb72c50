"""A connected server's icon (``serverInfo.icons``), fetched once and kept in ``{data dir}/icons``.

When a server connects, its icons are looked at (``core.icons.pick_icon``: ``https:`` or ``data:``
only); a ``data:`` icon is decoded, an ``https:`` one is downloaded (HTTPS all the way, redirects
included, at most :data:`MAX_ICON_BYTES`, within :data:`FETCH_TIMEOUT` seconds) in a task of its
own, so a slow icon never holds up the connection. Acceptable bytes are written to the icons
folder and the ``ServerIcon`` event names the file; an unacceptable icon is logged in the
server's log and nothing is shown. :meth:`IconFetcher.keep` is the same fetch and cache for any
other ``icons`` list (a registry entry's in Browse).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import httpx2

from elftia_desktop.connections.events import ConnectionStateChanged, ServerIcon, ServiceEvents
from elftia_desktop.core.icons import (
    EXTENSIONS,
    MAX_ICON_BYTES,
    IconError,
    check_icon,
    decode_data_uri,
    icon_file,
    pick_icon,
)
from elftia_desktop.core.models import ConnectionState

FETCH_TIMEOUT = 10.0
ICONS_FOLDER = "icons"
ServerIcons = Callable[[str], tuple[list[dict[str, Any]], Callable[[str], None]] | None]
"""Server id -> (its declared icons, where to log a problem), or None when it is not connected."""


class IconFetcher:
    """Fetches the icon of each server as it connects and emits ``ServerIcon``."""

    def __init__(
        self, events: ServiceEvents, folder: Path, icons_of: ServerIcons, transport: httpx2.AsyncBaseTransport | None
    ) -> None:
        self._events = events
        self.folder = folder
        self._icons_of = icons_of
        self._transport = transport
        self._tasks: set[asyncio.Task[Path | None]] = set()
        events.on(ConnectionStateChanged, self._on_state)

    def _on_state(self, event: ConnectionStateChanged) -> None:
        if event.state is not ConnectionState.CONNECTED:
            return
        found = self._icons_of(event.server_id)
        if found is None or pick_icon(found[0]) is None:
            return
        task = asyncio.get_running_loop().create_task(self.fetch(event.server_id, *found))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def fetch(self, server_id: str, icons: list[dict[str, Any]], note: Callable[[str], None]) -> Path | None:
        """Keep the server's icon and announce it; None (and a log line) when it is not acceptable."""
        try:
            path = await self.keep(icons)
        except (IconError, httpx2.HTTPError, OSError) as exc:
            note(f"[icon] not shown: {exc}")
            return None
        self._events.emit(ServerIcon(server_id, path))
        return path

    async def keep(self, icons: list[dict[str, Any]]) -> Path:
        """The kept file of the icon to show of ``icons`` (fetched and checked once).

        Raises ``IconError`` (none usable, or not acceptable), ``httpx2.HTTPError`` or ``OSError``.
        """
        icon = pick_icon([i for i in icons if isinstance(i, Mapping)])
        if icon is None:
            raise IconError("no usable icon (only https: and data: addresses of image types are shown)")
        return await self._cached(str(icon["src"]), icon.get("mimeType"))

    async def _cached(self, src: str, declared: object) -> Path:
        """The icon file for ``src``, fetched and checked unless kept already."""
        kept = await asyncio.to_thread(self._kept, src)
        if kept is not None:
            return kept
        if src.lower().startswith("data:"):
            kind, data = decode_data_uri(src)
        else:
            kind, data = await self._download(src, declared if isinstance(declared, str) else None)
        path = icon_file(self.folder, src, check_icon(kind, data))
        await asyncio.to_thread(_write, path, data)
        return path

    def _kept(self, src: str) -> Path | None:
        """The file kept for ``src`` earlier, if any (blocking: file checks)."""
        for extension in EXTENSIONS.values():
            kept = icon_file(self.folder, src, extension)
            if kept.is_file():
                return kept
        return None

    async def _download(self, url: str, declared: str | None) -> tuple[str, bytes]:
        """GET ``url`` over HTTPS (redirects too), at most ``MAX_ICON_BYTES``; its type and bytes."""

        async def https_only(request: httpx2.Request) -> None:
            """Refuse to send the request (or follow a redirect) anywhere but https:."""
            if request.url.scheme != "https":
                raise IconError(f"the icon's address led to {request.url.scheme}:, not https:")

        hooks = {"request": [https_only]}
        async with (
            httpx2.AsyncClient(
                timeout=FETCH_TIMEOUT, transport=self._transport, follow_redirects=True, event_hooks=hooks
            ) as http,
            http.stream("GET", url) as response,
        ):
            response.raise_for_status()
            chunks: list[bytes] = []
            size = 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > MAX_ICON_BYTES:
                    raise IconError(f"the icon at {url} is larger than {MAX_ICON_BYTES} bytes")
                chunks.append(chunk)
            kind = response.headers.get("content-type") or declared or ""
        return kind, b"".join(chunks)


def _write(path: Path, data: bytes) -> None:
    """Write the icon atomically (0600, like the rest of the data folder)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".icon.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
