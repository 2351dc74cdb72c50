"""A tool's flag is switched in one locked read-modify-write: switches made at once all stay.

The window's route once read the record, changed the list and wrote it back in three steps, so a
switch made meanwhile (a second window, the CLI) was lost.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.errors import ServerNotFound
from elftia_desktop.core.models import McpServerInput
from elftia_desktop.core.secrets import SecretVault


def catalog_on(folder: Path) -> ServerCatalog:
    return ServerCatalog(ConfigStore(folder / "c.json"), SecretVault(fallback_path=folder / "s.json"))


def test_switches_from_two_catalogs_at_once_all_stay(tmp_path: Path) -> None:
    first, second = catalog_on(tmp_path), catalog_on(tmp_path)
    record = first.add(McpServerInput(name="files", config={"command": "npx"}))
    assert record is not None

    def switch_off(catalog: ServerCatalog, prefix: str) -> None:
        for n in range(15):
            catalog.set_tool_flag(record.id, f"{prefix}{n}", "enabled", False)
            catalog.set_tool_flag(record.id, f"{prefix}{n}", "autoApprove", False)

    with ThreadPoolExecutor(2) as pool:
        list(pool.map(switch_off, (first, second), ("a", "b")))

    stored = catalog_on(tmp_path).get(record.id)
    expected = {f"{p}{n}" for p in "ab" for n in range(15)}
    assert set(stored.disabled_tools) == expected and len(stored.disabled_tools) == 30
    assert set(stored.disabled_auto_approve_tools) == expected


def test_switching_on_takes_the_tool_out_and_says_before_and_after(tmp_path: Path) -> None:
    catalog = catalog_on(tmp_path)
    record = catalog.add(McpServerInput(name="files", config={"command": "npx"}, disabled_tools=["read", "write"]))
    assert record is not None
    before, after = catalog.set_tool_flag(record.id, "read", "enabled", True)
    assert before.disabled_tools == ["read", "write"] and after.disabled_tools == ["write"]
    assert after.updated_at is not None
    _, again = catalog.set_tool_flag(record.id, "write", "enabled", False)
    assert again.disabled_tools == ["write"], "switching off twice lists the tool once"
    with pytest.raises(ServerNotFound):
        catalog.set_tool_flag("no-such-id", "read", "enabled", True)
