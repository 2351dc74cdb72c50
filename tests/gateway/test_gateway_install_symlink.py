"""``gateway install`` over a symlinked config (a dotfiles checkout): the target changes, the link stays."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest

from elftia_desktop.cli import main
from tests.gateway.test_gateway_install import claude_desktop_file, home  # noqa: F401 - the fixture

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the Linux location of the file")


def test_install_through_a_symlink_writes_the_target_and_keeps_the_link(
    home: Path,  # noqa: F811 - the fixture
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "claude_desktop_config.json"
    target.write_text(json.dumps({"mcpServers": {}}), encoding="utf-8")
    target.chmod(0o640)
    link = claude_desktop_file(home)
    link.symlink_to(target)

    assert main(["gateway", "install", "claude-desktop"]) == 0
    capsys.readouterr()
    assert link.is_symlink() and link.resolve() == target
    assert "elftia" in json.loads(target.read_text(encoding="utf-8"))["mcpServers"]
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert list(dotfiles.iterdir()) == [target]  # no temporary file or backup left in the checkout
    assert len(list(link.parent.glob("claude_desktop_config.json.elftia-backup-*"))) == 1

    assert main(["gateway", "uninstall", "claude-desktop"]) == 0
    assert link.is_symlink() and json.loads(target.read_text(encoding="utf-8")) == {"mcpServers": {}}
