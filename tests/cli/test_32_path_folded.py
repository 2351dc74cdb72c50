"""Issue 32: a "command not found" error shows the PATH once, a folder a line after the message."""

from __future__ import annotations

import os

from tests.helpers.cli_runner import run_cli


def test_command_not_found_lists_the_path_once_after_the_message() -> None:
    assert run_cli("add", "ghost", "--", "no-such-mcp-server-xyz").returncode == 0
    assert run_cli("trust", "ghost", "--yes").returncode == 0
    result = run_cli("call", "ghost", "echo", "--yes")
    assert result.returncode == 1
    first, heading, *folders = result.stderr.splitlines()
    assert first.startswith("error: ghost: command not found: 'no-such-mcp-server-xyz' (not in any of the ")
    assert heading == "Searched PATH, in order:" and folders and all(os.path.isabs(f) for f in folders)
    assert len(folders) == len(set(folders)), "each folder is shown once"
    assert os.pathsep.join(folders) not in first
