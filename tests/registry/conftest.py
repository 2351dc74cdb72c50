"""A running test registry with the entries of ``tests/registry/data`` and a published ``.mcpb`` package."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.registry.mcpb_builder import build_bundle, sha256_of
from tests.registry.registry_server import LocalRegistry, load_entries, serve_registry

BUNDLE_ENTRY = "io.github.example/bundled-notes"
OLD_SERVER_NOTE = "Replaced by io.github.example/new-server"
"""The registry's ``statusMessage`` of the deprecated entry."""


def bundle_entry(url: str, sha: str, version: str = "1.4.0") -> dict[str, object]:
    """A server.json whose package is an ``mcpb`` download from the test registry."""
    return {
        "name": BUNDLE_ENTRY,
        "description": "A bundled Python server, downloaded as .mcpb",
        "version": version,
        "packages": [
            {
                "registryType": "mcpb",
                "identifier": f"{url}/files/bundled-notes-{version}.mcpb",
                "version": version,
                "fileSha256": sha,
                "transport": {"type": "stdio"},
            }
        ],
    }


@pytest.fixture
def registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalRegistry]:
    """The test registry (pages of 2), also set as ``ELFTIA_REGISTRY_URL``; deprecated/deleted entries set."""
    with serve_registry(load_entries(), page_size=2) as served:
        bundle = build_bundle(tmp_path / "bundled-notes-1.4.0.mcpb")
        served.files[bundle.name] = bundle.read_bytes()
        served.publish(bundle_entry(served.url, sha256_of(bundle)))
        served.set_status("io.github.example/old-server", "deprecated", OLD_SERVER_NOTE)
        gone = {"name": "io.github.example/gone-server", "description": "Taken down", "version": "1.0.0"}
        gone["packages"] = [{"registryType": "npm", "identifier": "@example/gone", "version": "1.0.0"}]
        served.publish(gone)
        served.set_status("io.github.example/gone-server", "deleted")
        monkeypatch.setenv("ELFTIA_REGISTRY_URL", served.url)
        yield served
