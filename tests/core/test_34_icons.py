"""Issue 34: which icon is used (https or data only), and which bytes are accepted."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from elftia_desktop.core.icons import MAX_ICON_BYTES, IconError, check_icon, decode_data_uri, icon_file, pick_icon

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 32


def test_only_https_and_data_icons_are_picked_light_first() -> None:
    icons = [
        {"src": "http://a.test/i.png"},
        {"src": "file:///etc/passwd"},
        {"src": "https://a.test/i.bmp", "mimeType": "image/bmp"},
        {"src": "https://a.test/dark.png", "theme": "dark"},
        {"src": "https://a.test/light.png", "theme": "light"},
    ]
    assert pick_icon(icons) == {"src": "https://a.test/light.png", "theme": "light"}
    assert pick_icon(icons[:3]) is None and pick_icon(None) is None


def test_data_uris_and_bytes_are_checked() -> None:
    kind, data = decode_data_uri("data:image/png;base64," + base64.b64encode(PNG).decode())
    assert (kind, data) == ("image/png", PNG) and check_icon(kind, data) == "png"
    assert decode_data_uri("data:image/svg+xml,%3Csvg%3E%3C/svg%3E") == ("image/svg+xml", b"<svg></svg>")
    with pytest.raises(IconError, match="not valid base64"):
        decode_data_uri("data:image/png;base64,@@@")
    with pytest.raises(IconError, match="not a image/png image"):
        check_icon("image/png", b"<html>")
    with pytest.raises(IconError, match="type 'text/html' are not shown"):
        check_icon("text/html", b"<svg>")
    with pytest.raises(IconError, match="the limit is"):
        check_icon("image/png", PNG + b"\0" * MAX_ICON_BYTES)
    with pytest.raises(IconError, match="no <svg> element"):
        check_icon("image/svg+xml", b"<html><body/></html>")


def test_the_kept_file_is_named_by_a_hash_of_the_address(tmp_path: Path) -> None:
    path = icon_file(tmp_path, "https://a.test/../../x.png", "png")
    assert path.parent == tmp_path and path.suffix == ".png" and len(path.stem) == 32
