"""After "Use in other apps → Install", the entry Elftia wrote (``elftia-<agent>``) is recognised: importing
from that app never offers, counts or imports it, and ``gateway uninstall APP`` without ``--agent`` removes it
(or lists them when there are several)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from elftia_desktop.cli import main
from elftia_desktop.gateway.install import apply_plan, plan_install
from elftia_desktop.integrations.detector import Environment, detect, is_elftia_gateway
from elftia_desktop.integrations.importer import apply_import, preview_import
from tests.gateway.gateway_helpers import open_catalog

OTHER = {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the Linux location of Claude Desktop")


def test_the_gateway_entry_is_not_offered_on_import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    path = home / ".config" / "Claude" / "claude_desktop_config.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"mcpServers": {"memory": OTHER}}), encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    apply_plan(plan_install("claude-desktop", agent="Research", path=path))
    apply_plan(plan_install("claude-desktop", path=path))
    assert set(json.loads(path.read_text(encoding="utf-8"))["mcpServers"]) == {"memory", "elftia-research", "elftia"}

    (config,) = [c for c in detect(Environment.current(), apps=["claude-desktop"]) if c.location.path == path]
    assert config.server_names == ["memory"]
    assert config.to_json_dict()["elftiaEntries"] == ["elftia-research", "elftia"]
    catalog = open_catalog(tmp_path / "data")
    preview = preview_import([config], catalog.all())
    assert [item.entry.name for item in preview.items] == ["memory"]
    outcomes = apply_import(catalog, preview)
    assert [o.name for o in outcomes] == ["memory"]
    assert [r.name for r in catalog.all()] == ["memory"]


def test_what_counts_as_the_gateway() -> None:
    assert is_elftia_gateway({"command": "/usr/bin/python3", "args": ["-m", "elftia_desktop.cli", "serve"]})
    assert is_elftia_gateway({"command": "/opt/Elftia/elftia-mcp", "args": ["serve", "--agent", "x"]})
    assert not is_elftia_gateway({"command": "elftia-mcp", "args": ["list"]})
    assert not is_elftia_gateway(OTHER)
    assert not is_elftia_gateway(["serve"])


def test_uninstall_without_agent_removes_the_entry_elftia_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(json.dumps({"mcpServers": {"memory": OTHER}}), encoding="utf-8")
    apply_plan(plan_install("claude-desktop", agent="Research", path=path))
    apply_plan(plan_install("claude-desktop", agent="Writing", path=path))

    assert main(["gateway", "uninstall", "claude-desktop", "--file", str(path)]) == 2
    err = capsys.readouterr().err
    assert "2 entries there (elftia-research, elftia-writing)" in err and "--agent" in err

    assert main(["gateway", "uninstall", "claude-desktop", "--file", str(path), "--name", "elftia-writing"]) == 0
    capsys.readouterr()
    assert main(["gateway", "uninstall", "claude-desktop", "--file", str(path)]) == 0
    assert 'Removed "elftia-research"' in capsys.readouterr().out
    assert json.loads(path.read_text(encoding="utf-8"))["mcpServers"] == {"memory": OTHER}
    assert main(["gateway", "uninstall", "claude-desktop", "--file", str(path)]) == 2
    assert "there is no entry of Elftia's gateway" in capsys.readouterr().err
