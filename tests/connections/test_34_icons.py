"""Issue 34: a connected server's icon is kept in the data folder and announced; downloads are HTTPS only,
size-limited, checked; the SVG is drawn by Qt's renderer (no scripts) into an image for the card."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx2
import pytest

from elftia_desktop.connections.events import ServerIcon, ServiceEvents
from elftia_desktop.connections.icons import IconFetcher
from elftia_desktop.connections.service import McpService
from elftia_desktop.core.icons import MAX_ICON_BYTES
from tests.connections.pool_helpers import add_server, stdio_input
from tests.servers.icons import SVG

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 64


async def test_the_servers_icon_is_kept_and_announced(service: McpService, tmp_path: Path) -> None:
    announced: list[ServerIcon] = []
    got = asyncio.Event()
    service.events.on(ServerIcon, lambda e: (announced.append(e), got.set()))
    sid = await add_server(service, stdio_input("iconic", "icons"))
    await asyncio.wait_for(got.wait(), 30)
    path = announced[0].path
    assert announced[0].server_id == sid and path.parent == tmp_path / "icons" and path.suffix == ".svg"
    assert await asyncio.to_thread(path.read_bytes) == SVG  # the http:// icon listed first was passed over

    from elftia_desktop.bridge.icons import rasterize  # the bridge's drawing of it (Qt, no scripts)

    image = rasterize(path)
    assert image is not None and image.width() == 40 and image.pixelColor(20, 20).red() > 200


def fetcher(tmp_path: Path, handler: Any) -> tuple[IconFetcher, list[str], list[ServerIcon]]:
    """A fetcher over a mock HTTP transport; a list for its log lines, and the ``ServerIcon`` events it emits."""
    events, announced = ServiceEvents(), list[ServerIcon]()
    events.on(ServerIcon, announced.append)
    return IconFetcher(events, tmp_path, lambda sid: None, httpx2.MockTransport(handler)), [], announced


async def test_downloads_are_https_checked_and_limited(tmp_path: Path) -> None:
    def serve(request: httpx2.Request) -> httpx2.Response:
        if request.url.path == "/ok.png":
            return httpx2.Response(200, content=PNG, headers={"content-type": "image/png"})
        if request.url.path == "/downgrade.png":
            return httpx2.Response(302, headers={"location": "http://icons.test/ok.png"})
        if request.url.path == "/huge.png":
            return httpx2.Response(200, content=PNG + b"\0" * MAX_ICON_BYTES, headers={"content-type": "image/png"})
        return httpx2.Response(200, content=b"<html>", headers={"content-type": "text/html"})

    icons, notes, announced = fetcher(tmp_path, serve)
    ok = await icons.fetch("a", [{"src": "https://icons.test/ok.png"}], notes.append)
    assert ok is not None and ok.read_bytes() == PNG and announced == [ServerIcon("a", ok)]
    for path, why in [
        ("/downgrade.png", "led to http:, not https:"),
        ("/huge.png", "larger than"),
        ("/page.png", "type 'text/html' are not shown"),
    ]:
        assert await icons.fetch("b", [{"src": f"https://icons.test{path}"}], notes.append) is None
        assert why in notes[-1] and notes[-1].startswith("[icon] not shown: ")
    assert len(announced) == 1  # nothing announced for "b"


async def test_a_kept_icon_is_not_downloaded_again(tmp_path: Path) -> None:
    requests: list[str] = []

    def serve(request: httpx2.Request) -> httpx2.Response:
        requests.append(str(request.url))
        return httpx2.Response(200, content=PNG, headers={"content-type": "image/png"})

    icons, notes, _announced = fetcher(tmp_path, serve)
    first = await icons.fetch("a", [{"src": "https://icons.test/ok.png"}], notes.append)
    again = await icons.fetch("b", [{"src": "https://icons.test/ok.png"}], notes.append)
    assert first is not None and again == first and requests == ["https://icons.test/ok.png"]  # the cache
    assert notes == []
