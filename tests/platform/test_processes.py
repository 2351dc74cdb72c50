"""platform/groups.py and processes.py: the choices per OS (the OS passed in), and real kill scopes on this one."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest

from elftia_desktop.platform import groups, processes
from elftia_desktop.platform.lock import lock_fd, unlock_fd
from elftia_desktop.platform.proc_identity import start_time

POSIX = sys.platform != "win32"

pytestmark = pytest.mark.timeout(120)


def test_spawn_options_per_os() -> None:
    """POSIX: a new session. Windows: a new group, no console window unless asked, never a session."""
    assert groups.spawn_options("linux") == {"start_new_session": True}
    assert groups.spawn_options("darwin") == {"start_new_session": True}
    flags = groups.spawn_options("win32")["creationflags"]
    assert flags & groups.CREATE_NO_WINDOW and flags & groups.CREATE_NEW_PROCESS_GROUP
    assert "start_new_session" not in groups.spawn_options("win32")
    assert not groups.spawn_options("win32", console=True)["creationflags"] & groups.CREATE_NO_WINDOW


@pytest.mark.anyio
async def test_windows_resolves_a_script_command_and_posix_keeps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``npx`` on Windows is ``npx.cmd`` (the SDK's lookup); elsewhere the command is started as written."""
    script = tmp_path / "npx-like.cmd"
    script.write_text("@echo off\n", encoding="utf-8")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert await processes.executable("npx-like", "win32") == str(script)
    assert await processes.executable("npx-like", "linux") == "npx-like"


@pytest.mark.anyio
@pytest.mark.skipif(not POSIX, reason="process groups")
async def test_a_server_process_gets_its_own_group_and_its_tree_is_killed(tmp_path: Path) -> None:
    """``open_process`` starts a group leader; ``kill_tree`` reaches a grandchild left in the group."""
    marker = tmp_path / "grandchild.pid"
    code = (
        "import subprocess, sys, time;"
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)']);"
        f"open({str(marker)!r}, 'w').write(str(p.pid));"
        "sys.stdout.write('ready\\n'); sys.stdout.flush(); time.sleep(600)"
    )
    process = await processes.open_process([sys.executable, "-c", code], dict(os.environ), str(tmp_path))
    assert process.stdout is not None
    assert b"ready" in await process.stdout.receive()
    grandchild = int(marker.read_text())
    assert os.getpgid(process.pid) == process.pid
    assert os.getpgid(grandchild) == process.pid
    await processes.kill_tree(process)
    await process.wait()
    with anyio.fail_after(30):
        while start_time(grandchild) is not None:  # noqa: ASYNC110 - a killed process has no event to wait on
            await anyio.sleep(0.02)


def test_groups_that_do_not_exist_are_not_signalled() -> None:
    """A group id of 0 or 1 (this process's own, init's) is never signalled."""
    assert not groups.kill_group(0)
    assert not groups.kill_group(1)


@pytest.mark.skipif(not POSIX, reason="the probe uses flock")
def test_the_file_lock_excludes_another_process(tmp_path: Path) -> None:
    """While this process holds the lock, another process cannot take it without blocking."""
    import subprocess

    path = tmp_path / "lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    probe = (
        "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDWR)\n"
        "try:\n fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB); print('free')\n"
        "except BlockingIOError:\n print('held')\n"
    )
    try:
        lock_fd(fd)
        held = subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True, text=True, check=True)
        unlock_fd(fd)
        free = subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True, text=True, check=True)
    finally:
        os.close(fd)
    assert (held.stdout.strip(), free.stdout.strip()) == ("held", "free")
