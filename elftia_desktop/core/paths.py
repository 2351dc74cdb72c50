"""Where the app keeps its files: the user data folder, or ``ELFTIA_DATA_DIR`` when set.

Folders the app creates are 0700 and its files 0600. A folder or file that every user may
change (world-writable) is refused with :class:`UnsafePermissions` saying how to fix it: anyone
could otherwise put a server of their choosing into the list the app starts.
"""

from __future__ import annotations

import os
import shlex
import stat
import sys
from pathlib import Path

import platformdirs

from elftia_desktop.core.errors import UnsafePermissions

DATA_DIR_ENV = "ELFTIA_DATA_DIR"


def data_dir() -> Path:
    """The folder for ``mcp-config.json``, ``agents.json``, notes and runtime files (created)."""
    override = os.environ.get(DATA_DIR_ENV)
    path = Path(override) if override else Path(platformdirs.user_data_dir("elftia", appauthor=False))
    return private_folder(path, "data folder")


def private_folder(path: Path, what: str) -> Path:
    """``path``, created 0700 when missing; ``UnsafePermissions`` when every user may write to it."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    check_not_world_writable(path, what)
    return path


def check_not_world_writable(path: Path, what: str) -> None:
    """Refuse a file or folder that every user of the computer can change (POSIX)."""
    if sys.platform == "win32":
        return
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    if mode & stat.S_IWOTH:
        fix = "700" if stat.S_ISDIR(mode) else "600"
        raise UnsafePermissions(
            f"The {what} {path} can be changed by every user of this computer (mode {stat.S_IMODE(mode):04o}), "
            f"so Elftia will not use it. Fix it with: chmod {fix} {shlex.quote(str(path))}"
        )


def config_dir() -> Path:
    """The folder for user-private settings such as the fallback secrets file (created)."""
    override = os.environ.get(DATA_DIR_ENV)
    path = Path(override) if override else Path(platformdirs.user_config_dir("elftia", appauthor=False))
    return private_folder(path, "config folder")


def managed_tools_dir() -> Path:
    """``<data dir>/tools``: runtimes the app installed itself (``uv`` ...); not created here."""
    return data_dir() / "tools"


def managed_bin_dir() -> Path:
    """The folder of the commands the app installed; it goes after the system PATH."""
    return managed_tools_dir() / "bin"
