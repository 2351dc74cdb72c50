"""The registry client against the test registry: paging, search, versions, and every bad answer."""

from __future__ import annotations

import asyncio
import socket

import pytest

from elftia_desktop.registry.client import RegistryClient
from elftia_desktop.registry.entry import EntryStatus
from elftia_desktop.registry.errors import RegistryBadAnswer, RegistryUnreachable
from tests.registry.registry_server import LocalRegistry


def _names(registry: LocalRegistry) -> list[str]:
    async def run() -> list[str]:
        return [e.server.name async for e in RegistryClient(registry.url).all_entries()]

    return asyncio.run(run())


def test_every_page_is_followed(registry: LocalRegistry) -> None:
    names = _names(registry)
    assert len(names) == len(set(names)) == 8
    assert "io.github.modelcontextprotocol/server-everything" in names
    pages = [r for r in registry.requests if "/v0.1/servers?" in r]
    assert len(pages) == 4  # 8 entries in pages of 2
    assert all("version=latest" in r for r in pages)


def test_old_mirrors_next_cursor_is_followed(registry: LocalRegistry) -> None:
    registry.mode = "old-cursor"
    assert len(_names(registry)) == 8


def test_search_versions_and_one_version(registry: LocalRegistry) -> None:
    client = RegistryClient(registry.url)
    found = asyncio.run(client.search("everything"))
    assert [e.server.name for e in found] == ["io.github.modelcontextprotocol/server-everything"]
    assert found[0].server.version == "2026.8.31" and found[0].is_latest
    versions = asyncio.run(client.versions("io.github.modelcontextprotocol/server-everything"))
    assert [v.server.version for v in versions] == ["2025.9.25", "2026.8.31"]
    assert [v.is_latest for v in versions] == [False, True]
    old = asyncio.run(client.entry("io.github.modelcontextprotocol/server-everything", "2025.9.25"))
    assert old.server.packages[0].version == "2025.9.25" and old.source == registry.url
    deprecated = asyncio.run(client.entry("io.github.example/old-server"))
    assert deprecated.status is EntryStatus.DEPRECATED and not deprecated.installable


def test_unknown_entry_is_named(registry: LocalRegistry) -> None:
    with pytest.raises(RegistryBadAnswer, match=r"not found \(HTTP 404\)"):
        asyncio.run(RegistryClient(registry.url).entry("io.github.nobody/nothing"))


def test_registry_down() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(RegistryUnreachable, match=rf"127.0.0.1:{port}/v0.1/servers cannot be reached"):
        asyncio.run(RegistryClient(f"http://127.0.0.1:{port}").search("x"))


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("html", r"answered with an HTML page \(HTTP 200\), not the registry's JSON"),
        ("malformed", r"is not valid JSON: Expecting value at line 1, column 14"),
        ("huge", r"sent more than 8 MB; refused"),
    ],
)
def test_bad_answers(registry: LocalRegistry, mode: str, message: str) -> None:
    registry.mode = mode
    with pytest.raises(RegistryBadAnswer, match=message):
        asyncio.run(RegistryClient(registry.url).search("x"))


def test_slow_registry_times_out(registry: LocalRegistry) -> None:
    registry.mode = "slow"
    with pytest.raises(RegistryUnreachable, match=r"did not answer within 0.5 s"):
        asyncio.run(RegistryClient(registry.url, timeout=0.5).search("x"))


def test_an_item_of_the_wrong_shape_is_named(registry: LocalRegistry) -> None:
    registry.publish({"name": "io.github.example/broken", "description": "no version"})
    with pytest.raises(RegistryBadAnswer, match=r"servers\[0\]\.server: version"):
        asyncio.run(RegistryClient(registry.url).search("broken"))
