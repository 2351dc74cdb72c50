"""The config file: atomic, recoverable, versioned, and safe with two writers."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from elftia_desktop.core.config_store import CONFIG_VERSION, ConfigStore
from elftia_desktop.core.errors import ConfigTooNew
from elftia_desktop.core.models import McpServerConfig, McpServerRecord, McpServerTransport

ROOT = Path(__file__).resolve().parents[2]


def record(name: str) -> McpServerRecord:
    return McpServerRecord(name=name, type=McpServerTransport.STDIO, config=McpServerConfig(command="npx"))


def add(store: ConfigStore, name: str) -> None:
    store.mutate(lambda records: records.append(record(name)))


def test_writes_versioned_file_and_keeps_backup(tmp_path: Path) -> None:
    store = ConfigStore(tmp_path / "mcp-config.json")
    add(store, "one")
    add(store, "two")
    data = json.loads(store.path.read_text())
    assert data["version"] == CONFIG_VERSION
    assert [s["name"] for s in data["mcpServers"]] == ["one", "two"]
    backup = json.loads(store.backup_path.read_text())
    assert [s["name"] for s in backup["mcpServers"]] == ["one"]


@pytest.mark.parametrize("shape", ["list", "electron"])
def test_reads_the_original_electron_shapes(tmp_path: Path, shape: str) -> None:
    entry = {"id": "mcp_1_x", "name": "fs", "type": "stdio", "config": {"command": "npx"}, "isActive": False}
    path = tmp_path / "mcp-config.json"
    path.write_text(json.dumps([entry] if shape == "list" else {"mcpServers": [entry]}))
    records = ConfigStore(path).records()
    assert [(r.id, r.name, r.is_active) for r in records] == [("mcp_1_x", "fs", False)]


def test_failed_change_writes_nothing(tmp_path: Path) -> None:
    store = ConfigStore(tmp_path / "mcp-config.json")
    add(store, "one")
    before = store.path.read_bytes()

    def broken(records: list[McpServerRecord]) -> None:
        records.clear()
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        store.mutate(broken)
    assert store.path.read_bytes() == before
    assert [r.name for r in store.records()] == ["one"]


def test_newer_version_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "mcp-config.json"
    text = json.dumps({"version": CONFIG_VERSION + 1, "mcpServers": [{"whatever": True}]})
    path.write_text(text)
    with pytest.raises(ConfigTooNew, match="newer Elftia"):
        ConfigStore(path)
    assert path.read_text() == text
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock")) == ["mcp-config.json"]


def test_corrupt_file_is_moved_aside_and_backup_loaded(tmp_path: Path) -> None:
    store = ConfigStore(tmp_path / "mcp-config.json")
    add(store, "one")
    add(store, "two")  # .bak now holds ["one"]
    store.path.write_text('{"version": 1, "mcpServers": [ {"name": ')
    reopened = ConfigStore(store.path)
    assert [r.name for r in reopened.records()] == ["one"]
    assert len(reopened.notices) == 1
    assert "not valid JSON: Expecting value at line 1, column 41" in reopened.notices[0]
    assert "last good copy (.bak) was loaded" in reopened.notices[0]
    moved = list(tmp_path.glob("mcp-config.json.corrupt-*"))
    assert len(moved) == 1 and moved[0].read_text().startswith('{"version": 1, "mcpServers": [ {"name": ')


def test_corrupt_file_without_backup_is_reported_not_hidden(tmp_path: Path) -> None:
    path = tmp_path / "mcp-config.json"
    path.write_text("\x00garbage")
    store = ConfigStore(path)
    assert store.records() == []
    assert "no usable backup" in store.notices[0] and "corrupt-" in store.notices[0]
    assert list(tmp_path.glob("mcp-config.json.corrupt-*"))


def test_invalid_entry_is_kept_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "mcp-config.json"
    bad = {"id": "mcp_2_b", "name": "broken", "type": "stdio", "config": {}}
    good = {"id": "mcp_1_a", "name": "fine", "type": "http", "config": {"url": "https://x.dev/mcp"}}
    path.write_text(json.dumps({"version": 1, "mcpServers": [good, bad]}))
    store = ConfigStore(path)
    assert [r.name for r in store.records()] == ["fine"]
    assert '"broken"' in store.notices[0] and "config.command" in store.notices[0]
    add(store, "new")
    saved = json.loads(path.read_text())["mcpServers"]
    assert bad in saved and [s["name"] for s in saved] == ["fine", "new", "broken"]


def test_store_reloads_when_another_writer_changed_the_file(tmp_path: Path) -> None:
    first = ConfigStore(tmp_path / "mcp-config.json")
    second = ConfigStore(tmp_path / "mcp-config.json")
    add(first, "from-first")
    assert [r.name for r in second.records()] == ["from-first"]
    add(second, "from-second")
    assert [r.name for r in first.records()] == ["from-first", "from-second"]


CRASHING_WRITER = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    from elftia_desktop.core.config_store import ConfigStore
    from elftia_desktop.core.models import McpServerRecord
    store = ConfigStore(Path(sys.argv[1]))
    def stall(src, dst):
        print("about-to-rename", flush=True)
        time.sleep(60)
    os.replace = stall
    store.mutate(lambda records: records.append(
        McpServerRecord(name="never", type="stdio", config={"command": "x"})))
    """
)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_crash_between_write_and_rename_keeps_the_old_file(tmp_path: Path) -> None:
    store = ConfigStore(tmp_path / "mcp-config.json")
    add(store, "survivor")
    before = store.path.read_bytes()
    writer = subprocess.Popen(
        [sys.executable, "-c", CRASHING_WRITER, str(store.path)], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == "about-to-rename"
    writer.send_signal(signal.SIGKILL)
    writer.wait(timeout=30)
    assert store.path.read_bytes() == before
    assert [r.name for r in ConfigStore(store.path).records()] == ["survivor"]


WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from elftia_desktop.core.config_store import ConfigStore
    from elftia_desktop.core.models import McpServerRecord
    store = ConfigStore(Path(sys.argv[1]))
    tag, count = sys.argv[2], int(sys.argv[3])
    for i in range(count):
        store.mutate(lambda records, i=i: records.append(
            McpServerRecord(name=f"{tag}-{i}", type="stdio", config={"command": "x"})))
    """
)


def test_two_processes_interleaving_200_updates_lose_none(tmp_path: Path) -> None:
    path = tmp_path / "mcp-config.json"
    ConfigStore(path)
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), tag, "100"], cwd=ROOT) for tag in ("a", "b")]
    deadline = time.monotonic() + 110
    for writer in writers:
        assert writer.wait(timeout=max(1.0, deadline - time.monotonic())) == 0
    names = [r.name for r in ConfigStore(path).records()]
    assert len(names) == 200
    assert sorted(names) == sorted([f"a-{i}" for i in range(100)] + [f"b-{i}" for i in range(100)])
