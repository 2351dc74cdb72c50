"""Issue 34: a registry entry's ``icons`` (server.json) shown before it in Browse, through the cards' icon code.

The test registry publishes one entry with a data: SVG icon and one whose only icon is an http:
address (never used). The icon is kept in the data folder's icons cache, like a server card's.
"""

from __future__ import annotations

import base64
from pathlib import Path

from PySide6.QtGui import QColor
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from tests.registry.registry_server import LocalRegistry
from tests.registry.test_browse_page import WAIT, open_browse, router  # noqa: F401  (the fixture)

SVG = b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><rect width="8" height="8" fill="#d03020"/></svg>'
SHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"


def entry(name: str, src: str) -> dict[str, object]:
    """A server.json with one icon."""
    return {
        "name": f"io.github.example/{name}",
        "description": f"The {name} server",
        "version": "1.0.0",
        "icons": [{"src": src, "mimeType": "image/svg+xml"}],
        "packages": [{"registryType": "npm", "identifier": f"@example/{name}", "version": "1.0.0"}],
    }


def test_entry_icons_in_browse_rows(
    qtbot: QtBot,
    router: McpRouter,  # noqa: F811
    registry: LocalRegistry,
    isolated_data_dir: Path,
) -> None:
    registry.publish(entry("iconic", "data:image/svg+xml;base64," + base64.b64encode(SVG).decode()))
    registry.publish(entry("plainhttp", "http://example.com/icon.svg"))
    page = open_browse(qtbot, router, registry)
    page.query.setText("io.github.example/")
    iconic = next(v for v in page.views if v.name.endswith("/iconic"))
    qtbot.waitUntil(lambda: iconic.key in page.icons, timeout=WAIT)
    image = page.icons[iconic.key]
    assert QColor(image.pixel(image.width() // 2, image.height() // 2)).name() == "#d03020"
    row = next(i for i, v in enumerate(page.views) if v.key == iconic.key)
    assert not page.results.item(row).icon().isNull()
    assert list((isolated_data_dir / "icons").glob("*.svg"))  # the cards' icon cache
    plain = next(v for v in page.views if v.name.endswith("/plainhttp"))
    assert plain.key not in page.icons  # an http: icon is never fetched
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.grab().save(str(SHOTS / "browse-icons.png"))
