"""File modes through ``elftia-mcp``: files 0600, the data folder 0700, a world-writable one refused."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.cli.test_servers import cli

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_new_data_folder_is_0700_and_files_0600(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "fresh" / "elftia"
    monkeypatch.setenv("ELFTIA_DATA_DIR", str(folder))
    assert cli("add", "files", "--env", "GITHUB_PAT=ghp_" + "x1" * 18, "--", "npx", "pkg").returncode == 0
    assert _mode(folder) == 0o700
    assert _mode(folder / "mcp-config.json") == 0o600
    assert _mode(folder / "secrets.json") == 0o600
    text = (folder / "mcp-config.json").read_text()
    assert '"GITHUB_PAT": "${secret:GITHUB_PAT}"' in text and "x1x1" not in text


def test_world_writable_data_folder_is_refused_with_the_fix(isolated_data_dir: Path) -> None:
    isolated_data_dir.chmod(0o777)
    result = cli("list")
    assert result.returncode == 2
    assert result.stderr.strip() == (
        f"error: The data folder {isolated_data_dir} can be changed by every user of this computer (mode 0777), "
        f"so Elftia will not use it. Fix it with: chmod 700 {isolated_data_dir}"
    )


def test_world_writable_config_is_refused_with_the_fix(isolated_data_dir: Path) -> None:
    assert cli("add", "files", "--", "npx", "pkg").returncode == 0
    config = isolated_data_dir / "mcp-config.json"
    config.chmod(0o666)
    result = cli("list")
    assert result.returncode == 2
    assert f"The file {config} can be changed by every user of this computer (mode 0666)" in result.stderr
    assert f"Fix it with: chmod 600 {config}" in result.stderr
    config.chmod(0o600)
    assert "files" in cli("list").stdout
