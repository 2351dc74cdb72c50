"""Issue 35: finding commands per OS with a fake PATH folder, and which login shell holds the user's PATH.

The OS is a value (:class:`CommandHost`) handed to the lookup; ``sys.platform`` is never patched.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from elftia_desktop.core.models import McpServerConfig, McpServerRecord, McpServerTransport
from elftia_desktop.deps.checker import DependencyChecker
from elftia_desktop.platform.commands import (
    MACOS_DEFAULT_SHELL,
    CommandHost,
    candidate_names,
    find_command,
    is_batch_launcher,
    login_shell,
)

WINDOWS = CommandHost("win32", {"PATHEXT": ".COM;.EXE;.BAT;.CMD;.VBS;.JS;.WSH;.MSC"})
LINUX = CommandHost("linux", {})


def _file(folder: Path, name: str, mode: int = 0o644) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("@echo off\r\n" if name.endswith(".cmd") else "#!/bin/sh\nexit 0\n", encoding="utf-8")
    path.chmod(mode)
    return path


def test_windows_npx_is_npx_cmd_through_pathext(tmp_path: Path) -> None:
    """Node's installer puts ``npx`` (a shell script for Git Bash) beside ``npx.cmd``: Windows starts the .cmd."""
    node = tmp_path / "nodejs"
    _file(node, "npx")
    launcher = _file(node, "npx.cmd")
    path = ";".join([str(tmp_path / "empty"), "", str(node)])
    assert find_command("npx", path, WINDOWS) == str(launcher)
    assert is_batch_launcher(str(launcher))


def test_windows_pathext_order_and_a_given_extension(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    exe, cmd = _file(bin_dir, "uvx.exe"), _file(bin_dir, "uvx.cmd")
    assert find_command("uvx", str(bin_dir), WINDOWS) == str(exe)
    assert find_command("uvx.cmd", str(bin_dir), WINDOWS) == str(cmd)
    only_cmd = CommandHost("win32", {"PATHEXT": ".CMD"})
    assert find_command("uvx", str(bin_dir), only_cmd) == str(cmd)
    assert candidate_names("npx", CommandHost("win32", {})) == ["npx.com", "npx.exe", "npx.bat", "npx.cmd"]


def test_windows_first_folder_on_path_wins(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    _file(second, "node.exe")
    wanted = _file(first, "node.cmd")
    assert find_command("node", f"{first};{second}", WINDOWS) == str(wanted)


def test_windows_path_given_with_backslashes_is_checked_where_it_is(tmp_path: Path) -> None:
    launcher = _file(tmp_path, "tool.bat")
    assert find_command(str(tmp_path / "tool"), "", WINDOWS) == str(launcher)
    assert find_command("C:\\nowhere\\tool", str(tmp_path), WINDOWS) is None  # a path is never looked up on PATH


@pytest.mark.skipif(sys.platform == "win32", reason="the executable bit is POSIX (Windows: every file passes X_OK)")
def test_posix_needs_the_executable_bit(tmp_path: Path) -> None:
    plain, runnable = tmp_path / "plain", tmp_path / "runnable"
    _file(plain, "npx")
    _file(plain, "npx.cmd")
    tool = _file(runnable, "npx", 0o755)
    assert find_command("npx", f"{plain}:{runnable}", LINUX) == str(tool)
    assert find_command("npx", f"{plain}:", LINUX) is None  # an empty entry is not the current folder
    assert find_command("npx", f"{plain};{runnable}", LINUX) is None  # ``;`` separates nothing on POSIX


def test_the_path_defaults_to_the_hosts_own(tmp_path: Path) -> None:
    tool = _file(tmp_path, "elftia-fake-tool.cmd")
    assert find_command("elftia-fake-tool", host=CommandHost("win32", {"PATH": str(tmp_path)})) == str(tool)
    assert find_command("elftia-fake-tool", host=CommandHost("win32", {})) is None


def test_login_shell_per_os() -> None:
    assert login_shell(CommandHost("win32", {"SHELL": "/usr/bin/bash"})) is None  # Git Bash sets SHELL
    assert login_shell(CommandHost("darwin", {})) == MACOS_DEFAULT_SHELL  # started from the Dock
    assert login_shell(CommandHost("darwin", {"SHELL": "/opt/homebrew/bin/fish"})) == "/opt/homebrew/bin/fish"
    assert login_shell(CommandHost("linux", {"SHELL": "/bin/bash"})) == "/bin/bash"
    assert login_shell(CommandHost("linux", {"SHELL": "bash"})) is None  # not a path: never looked up
    assert login_shell(CommandHost("linux", {})) is None


@pytest.mark.anyio
@pytest.mark.skipif(sys.platform == "win32", reason="the fake tools are POSIX shell scripts")
async def test_stdio_start_and_checker_share_the_lookup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The checker's answer is the program a server starts with (a name found on the same PATH)."""
    from elftia_desktop.connections.transports import stdio_argv
    from elftia_desktop.core import login_env

    bin_dir = tmp_path / "bin"
    tool = _file(bin_dir, "elftia-shared-tool", 0o755)
    _file(tmp_path / "earlier", "elftia-shared-tool")  # not executable: skipped by both
    monkeypatch.delenv("SHELL", raising=False)
    monkeypatch.setenv("PATH", os.pathsep.join([str(tmp_path / "earlier"), str(bin_dir), os.environ["PATH"]]))
    login_env.reset_cache()
    try:
        record = McpServerRecord(
            name="t",
            type=McpServerTransport.STDIO,
            config=McpServerConfig(command="elftia-shared-tool"),
            is_trusted=True,
        )
        argv, _, _ = await stdio_argv(record)
        check = await DependencyChecker(tools_dir=tmp_path / "tools").check("elftia-shared-tool")
    finally:
        login_env.reset_cache()
    assert argv[0] == check.path == str(tool)
