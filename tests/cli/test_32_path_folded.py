"""Issue 32: a "command not found" error shows the PATH once, a folder a line after the message."""

from __future__ import annotations

import os

import pytest

from elftia_desktop.core.errors import ServerStartFailed
from elftia_desktop.host.client import _raise
from elftia_desktop.host.commands import _error
from tests.helpers.cli_runner import run_cli


def test_command_not_found_lists_the_path_once_after_the_message() -> None:
    assert run_cli("add", "ghost", "--", "no-such-mcp-server-xyz").returncode == 0
    assert run_cli("trust", "ghost", "--yes").returncode == 0
    result = run_cli("call", "ghost", "echo", "--yes")
    assert result.returncode == 1
    first, heading, *folders = result.stderr.splitlines()
    assert first.startswith('error: ghost: command not found: "no-such-mcp-server-xyz" (not in any of the ')
    assert heading == "Searched PATH, in order:" and folders and all(os.path.isabs(f) for f in folders)
    assert len(folders) == len(set(folders)), "each folder is shown once"
    assert os.pathsep.join(folders) not in first


def test_the_folded_path_crosses_from_the_pool_host_to_the_cli() -> None:
    """A CLI attached to the pool host gets the same error: class, message and the folded PATH."""
    sent = ServerStartFailed("command not found: 'x' (not in any of the 2 folders on the PATH)", details="/a\n/b")
    with pytest.raises(ServerStartFailed) as caught:
        _raise(_error(sent))
    assert (str(caught.value), caught.value.details) == (str(sent), "/a\n/b")
