"""Process groups and kill scopes that need no SDK: the options that start a child in its own group, and killing it.

POSIX (Linux, macOS): a child starts in a new session, so its pid is its process group and a
signal to the group reaches everything it started (``killpg``). Windows has no groups to signal:
a child starts in a new process group (so Ctrl+C stays with the parent), without a console
window, and is killed on its own (``processes.py`` adds the SDK's Job Object for servers). Each
function takes the OS as ``system`` (``sys.platform`` by default), so the choices are testable
on any OS.
"""

from __future__ import annotations

import os
import signal
import sys
from contextlib import suppress
from typing import Any

HARD_KILL = int(getattr(signal, "SIGKILL", signal.SIGTERM))
"""The signal that cannot be caught (Windows' ``os.kill`` with SIGTERM is ``TerminateProcess``, as hard)."""
CREATE_NO_WINDOW = 0x08000000
"""Windows' creation flag for a child without a console window (``subprocess.CREATE_NO_WINDOW``)."""
CREATE_NEW_PROCESS_GROUP = 0x00000200
"""Windows' creation flag that keeps the parent's Ctrl+C away from the child."""


def is_windows(system: str = sys.platform) -> bool:
    """Whether ``system`` (a ``sys.platform`` value) is Windows."""
    return system == "win32"


def spawn_options(system: str = sys.platform, *, console: bool = False) -> dict[str, Any]:
    """Keyword arguments for ``subprocess``/``asyncio``/``anyio`` that start a child in its own kill scope.

    POSIX: a new session (the child's pid is its group). Windows: a new process group, without a
    console window unless ``console`` (a short helper whose window nobody sees either way).
    """
    if is_windows(system):
        return {"creationflags": CREATE_NEW_PROCESS_GROUP | (0 if console else CREATE_NO_WINDOW)}
    return {"start_new_session": True}


def signal_group(pgid: int, sig: int) -> bool:
    """Send ``sig`` to a POSIX process group we started; False when it is gone (or where groups do not exist)."""
    killpg = getattr(os, "killpg", None)
    if killpg is None or pgid <= 1:
        return False
    try:
        killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:  # EPERM never proves the group is gone (zombies on macOS)
        return True
    return True


def kill_group(pgid: int) -> bool:
    """SIGKILL a POSIX process group we started; False when it is gone (or where groups do not exist)."""
    return signal_group(pgid, HARD_KILL)


def kill_process(process: Any, system: str = sys.platform) -> None:
    """Kill a child started with :func:`spawn_options` and everything in its group, without awaiting (sync)."""
    if not is_windows(system) and hasattr(os, "killpg"):
        kill_group(process.pid)  # the group outlives its leader: kill it either way
        return
    with suppress(ProcessLookupError, PermissionError, OSError):
        if process.returncode is None:
            process.kill()
