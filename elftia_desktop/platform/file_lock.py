"""An exclusive lock on an open file descriptor, shared by processes: ``flock`` on POSIX, ``msvcrt`` on Windows."""

from __future__ import annotations

import os
import sys


def lock_fd(fd: int) -> None:
    """Block until this process holds the exclusive lock of the file open as ``fd``."""
    if sys.platform == "win32":  # pragma: no cover - Windows
        import msvcrt

        msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
    else:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX)


def unlock_fd(fd: int) -> None:
    """Give up the lock taken with :func:`lock_fd` (the caller closes ``fd``)."""
    if sys.platform == "win32":  # pragma: no cover - Windows
        import msvcrt

        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
    else:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_UN)
