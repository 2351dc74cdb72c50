"""The user's private runtime folder (for the pool host's socket), private files and detached processes, on every OS.

Linux and macOS: ``$XDG_RUNTIME_DIR/elftia`` when that folder exists, else ``<tmp>/elftia-<uid>``;
created mode 0700 and refused when another user owns it or others can write to it. Windows:
``%LOCALAPPDATA%\\Elftia\\run`` (the profile's folders are the user's by their ACL).
``ELFTIA_HOST_DIR`` overrides the folder (tests). A folder whose path leaves no room for a socket's name
within ``AF_UNIX``'s limit (about 104 bytes on macOS, 108 on Linux) gives way to ``/tmp/elftia-<uid>``:
the host is found through its claim in the data folder, so where its socket lies does not matter.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

RUNTIME_ENV = "ELFTIA_HOST_DIR"
"""Overrides the runtime folder (tests)."""

SOCKET_PATH_LIMIT = 100
"""The longest socket path we use: below macOS's 104 bytes and Linux's 108, with a margin."""

SOCKET_NAME_ROOM = 32
"""Room kept in the folder's path for a socket's file name (``host-<16 hex>.sock`` is 26)."""


class UnsafeRuntimeFolder(Exception):
    """The runtime folder belongs to another user or others can write to it."""


def user_id() -> int | None:
    """This process's user id where the OS has one (None on Windows)."""
    getuid = getattr(os, "getuid", None)
    return getuid() if getuid is not None else None


def runtime_folder() -> Path:
    """The user's private folder for local endpoints (created; ``UnsafeRuntimeFolder`` when shared)."""
    override = os.environ.get(RUNTIME_ENV)
    if override:
        folder = Path(override)
    elif sys.platform == "win32":
        folder = Path(os.environ.get("LOCALAPPDATA") or tempfile.gettempdir()) / "Elftia" / "run"
    elif (base := os.environ.get("XDG_RUNTIME_DIR")) and os.path.isdir(base):
        folder = Path(base) / "elftia"
    else:
        folder = Path(tempfile.gettempdir()) / f"elftia-{user_id()}"
    if sys.platform != "win32" and len(os.fsencode(folder)) > SOCKET_PATH_LIMIT - SOCKET_NAME_ROOM:
        folder = Path("/tmp") / f"elftia-{user_id()}"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    check_private(folder)
    return folder


def check_private(folder: Path) -> None:
    """``UnsafeRuntimeFolder`` when ``folder`` is another user's or others can write to it (POSIX)."""
    uid = user_id()
    if uid is None:
        return
    info = folder.stat()
    if info.st_uid != uid or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise UnsafeRuntimeFolder(f"{folder} belongs to another user or others can write to it")


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` readable by this user only, atomically (a reader sees the old or the new)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temporary, path)


def detached() -> dict[str, Any]:
    """``subprocess.Popen`` options for a background process that outlives its starter's terminal and signals."""
    if sys.platform == "win32":
        flags = getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0) | getattr(subprocess, "CREATE_NO_WINDOW", 0)
        return {"creationflags": flags}
    return {"start_new_session": True}


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie does not), asking the OS without touching the process."""
    if sys.platform == "win32":
        import ctypes

        kernel = ctypes.windll.kernel32  # type: ignore[attr-defined,unused-ignore]
        handle = kernel.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return False
        code = ctypes.c_ulong()
        try:
            return bool(kernel.GetExitCodeProcess(handle, ctypes.byref(code))) and code.value == 259  # STILL_ACTIVE
        finally:
            kernel.CloseHandle(handle)
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle_file:
            return handle_file.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:  # no /proc (macOS): signal 0 only asks
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
