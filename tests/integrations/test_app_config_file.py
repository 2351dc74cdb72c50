"""The one way we change another app's config: backup first, atomic write, refused when it changed meanwhile."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from elftia_desktop.core.errors import ConfigError
from elftia_desktop.gateway.install import apply_plan, plan_install


@pytest.mark.skipif(sys.platform == "win32", reason="file modes are POSIX")
def test_the_gateway_install_keeps_a_backup_and_refuses_a_file_changed_since_the_diff(tmp_path: Path) -> None:
    target = tmp_path / "mcp.json"
    target.write_text(json.dumps({"mcpServers": {"mine": {"command": "x"}}}))
    target.chmod(0o640)
    plan = plan_install("cursor", path=target)
    target.write_text(json.dumps({"mcpServers": {"mine": {"command": "y"}}}))  # another app wrote meanwhile
    with pytest.raises(ConfigError, match="changed since the diff was shown; nothing was written"):
        apply_plan(plan)
    assert json.loads(target.read_text())["mcpServers"] == {"mine": {"command": "y"}}
    backup = apply_plan(plan_install("cursor", path=target))
    assert backup is not None and json.loads(backup.read_text())["mcpServers"] == {"mine": {"command": "y"}}
    assert backup.name.startswith("mcp.json.elftia-backup-")
    assert set(json.loads(target.read_text())["mcpServers"]) == {"mine", "elftia"}
    assert target.stat().st_mode & 0o777 == 0o640, "the file keeps its permissions"
