"""Child processes on every OS: how to start one in its own kill scope, and how to stop or kill that scope.

POSIX (Linux, macOS): a child starts in a new session, so its pid is its process group and a
signal to the group reaches everything it started (``killpg``); SIGTERM first, SIGKILL last.
Windows has no groups and no SIGTERM: a child starts without a console window
(``CREATE_NO_WINDOW``) in a Job Object that kills its members when closed, and ``npx`` resolves
to ``npx.cmd`` (both through the SDK's own helpers, ``mcp.os.win32.utilities``); terminating
its tree is the job's hard kill. Everything takes the OS as ``system`` (``sys.platform`` by
default), so the choices are testable on any OS.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from typing import TextIO, cast

import anyio
import anyio.abc
import anyio.to_thread

from elftia_desktop.platform import groups


async def executable(command: str, system: str = sys.platform) -> str:
    """The program to start for ``command``: on Windows ``npx`` -> ``npx.cmd`` (``.bat``, ``.exe``); else as is."""
    if not groups.is_windows(system):
        return command
    from mcp.os.win32.utilities import get_windows_executable_command

    return await anyio.to_thread.run_sync(get_windows_executable_command, command, abandon_on_cancel=True)


async def open_process(
    argv: Sequence[str], env: Mapping[str, str] | None, cwd: str | None, system: str = sys.platform
) -> anyio.abc.Process:
    """Start ``argv`` with stdin, stdout and stderr piped, in its own kill scope (group or Job Object)."""
    command = [await executable(argv[0], system), *argv[1:]]
    if groups.is_windows(system):  # pragma: no cover - the SDK's Job Object spawn
        from mcp.os.win32.utilities import create_windows_process

        errlog = cast(TextIO, subprocess.PIPE)  # the SDK passes it on as ``stderr``
        process = await create_windows_process(
            command[0], command[1:], dict(env) if env is not None else None, errlog, cwd
        )
        return cast(anyio.abc.Process, process)
    return await anyio.open_process(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(env) if env is not None else None,
        cwd=cwd,
        **groups.spawn_options(system),
    )


async def terminate_tree(process: anyio.abc.Process, system: str = sys.platform) -> None:
    """Ask the child and everything it started to end: SIGTERM to its group; on Windows its job's hard kill."""
    if groups.is_windows(system):  # pragma: no cover - the SDK's Job Object
        from mcp.os.win32.utilities import terminate_windows_process_tree

        await terminate_windows_process_tree(process)
        return
    groups.signal_group(process.pid, signal.SIGTERM)


async def kill_tree(process: anyio.abc.Process, system: str = sys.platform) -> None:
    """Kill the child and everything left in its group (or job) now."""
    if groups.is_windows(system):  # pragma: no cover - the SDK's Job Object
        await terminate_tree(process, system)
        return
    groups.kill_group(process.pid)


def release(process: anyio.abc.Process, system: str = sys.platform) -> None:
    """Let go of what the OS keeps for the child's kill scope (Windows: close its job, killing what is left)."""
    if groups.is_windows(system):  # pragma: no cover - the SDK's Job Object
        from mcp.os.win32.utilities import close_process_job

        close_process_job(process)
