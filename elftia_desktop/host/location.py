"""Where the host of a data folder listens: a Unix socket in the user's runtime folder.

The folder is ``$XDG_RUNTIME_DIR/elftia`` (or ``<tmp>/elftia-<uid>``), created mode 0700 and
refused when another user owns it. Each data folder has its own socket and lock file, named by a
short digest of the folder's path, so one host serves one data folder and another data folder
(``ELFTIA_DATA_DIR``) gets another host.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from elftia_desktop.core.paths import data_dir

NO_DAEMON_ENV = "ELFTIA_NO_DAEMON"
"""Set to 1: gateways and CLI commands never attach to a host (like ``--no-daemon``)."""
RUNTIME_ENV = "ELFTIA_HOST_DIR"
"""Overrides the folder of the sockets (tests)."""


class UnsafeRuntimeFolder(Exception):
    """The runtime folder belongs to another user or others can write to it."""


@dataclass(frozen=True)
class HostLocation:
    """The files of one data folder's host."""

    data_dir: Path
    socket: Path
    lock: Path
    log: Path


def attach_disabled() -> bool:
    """Whether ``ELFTIA_NO_DAEMON`` asks every command to run its own pool."""
    return os.environ.get(NO_DAEMON_ENV, "").strip().lower() not in ("", "0", "false", "no")


def runtime_folder() -> Path:
    """The user's private folder for host sockets (created 0700; ``UnsafeRuntimeFolder`` when shared)."""
    override = os.environ.get(RUNTIME_ENV)
    base = os.environ.get("XDG_RUNTIME_DIR")
    if override:
        folder = Path(override)
    elif base and os.path.isdir(base):
        folder = Path(base) / "elftia"
    else:
        folder = Path(tempfile.gettempdir()) / f"elftia-{os.getuid()}"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = folder.stat()
    if info.st_uid != os.getuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise UnsafeRuntimeFolder(f"{folder} belongs to another user or others can write to it")
    return folder


def host_location(folder: Path | None = None) -> HostLocation:
    """The socket, lock and log of the host of ``folder`` (default: this process's data folder)."""
    data = (folder if folder is not None else data_dir()).resolve()
    digest = hashlib.sha256(str(data).encode()).hexdigest()[:16]
    runtime = runtime_folder()
    return HostLocation(
        data_dir=data,
        socket=runtime / f"host-{digest}.sock",
        lock=runtime / f"host-{digest}.lock",
        log=runtime / f"host-{digest}.log",
    )
