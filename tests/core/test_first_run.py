"""A fresh install starts with the built-in servers; an existing config is never touched."""

from __future__ import annotations

import sys
from pathlib import Path

from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.first_run import seed_builtin_servers
from elftia_desktop.core.models import McpServerInput
from elftia_desktop.core.secrets import SecretVault


def open_catalog(tmp_path: Path) -> ServerCatalog:
    return ServerCatalog(ConfigStore(tmp_path / "mcp-config.json"), SecretVault(fallback_path=tmp_path / "s.json"))


def test_fresh_install_gets_trusted_builtin_servers(tmp_path: Path) -> None:
    added = seed_builtin_servers(open_catalog(tmp_path))
    assert sorted(r.config.args[-1] for r in added) == [
        "elftia_desktop.builtin_servers.clock",
        "elftia_desktop.builtin_servers.notes",
    ]
    assert all(r.install_source == "builtin" and r.is_trusted and r.config.command == sys.executable for r in added)
    assert seed_builtin_servers(open_catalog(tmp_path)) == []  # the second start adds nothing


def test_existing_config_is_left_alone(tmp_path: Path) -> None:
    catalog = open_catalog(tmp_path)
    catalog.add(McpServerInput(name="mine", config={"command": "uvx"}))
    assert seed_builtin_servers(open_catalog(tmp_path)) == []
    assert [r.name for r in open_catalog(tmp_path).all()] == ["mine"]
