"""``elftia-mcp export --output`` into a symlinked file: the target is written, the link kept, the mode kept."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest

from tests.cli.test_servers import cli


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need a privilege on Windows; file modes are POSIX")
def test_export_output_through_a_symlink_keeps_the_link(tmp_path: Path) -> None:
    target = tmp_path / "dotfiles" / "mcp.json"
    target.parent.mkdir()
    target.write_text(json.dumps({"mcpServers": {"theirs": {"command": "x"}}}), encoding="utf-8")
    target.chmod(0o600)
    link = tmp_path / "mcp.json"
    link.symlink_to(target)
    cli("add", "files", "--", "npx", "pkg")
    done = cli("export", "cursor", "--output", str(link))
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and link.resolve() == target
    assert set(json.loads(target.read_text(encoding="utf-8"))["mcpServers"]) == {"theirs", "files"}
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
