"""Exclusive locks on files, released by the OS when their holder dies.

``flock`` on Linux and macOS, ``msvcrt.locking`` of the file's first byte on Windows:
:class:`FileLock` never waits (the host's claim), :func:`lock_fd` waits its turn (a store's save).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


class FileLock:
    """An exclusive, non-waiting lock on one file, held from :meth:`acquire` until :meth:`release`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        """Whether this process holds the lock."""
        return self._fd is not None

    def acquire(self, note: bytes = b"") -> bool:
        """Take the lock if nobody holds it (never waits); whether it is held now.

        ``note`` is written into the file after its first byte (the byte Windows locks), for others to read.
        """
        if self._fd is not None:
            return True
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        if not _lock(fd):
            os.close(fd)
            return False
        if note:
            os.ftruncate(fd, 1)
            os.lseek(fd, 1, os.SEEK_SET)
            os.write(fd, note)
        self._fd = fd
        return True

    def release(self) -> None:
        """Give the lock up (idempotent)."""
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor releases the lock on every OS
            self._fd = None


def read_note(path: Path) -> bytes:
    """What the holder of the lock of ``path`` wrote (``FileLock.acquire``'s ``note``); empty when none."""
    try:
        with open(path, "rb") as handle:
            handle.seek(1)
            return handle.read()
    except OSError:
        return b""


def is_free(path: Path) -> bool:
    """Whether nobody holds the lock of ``path`` (the lock is let go at once)."""
    lock = FileLock(path)
    free = lock.acquire()
    lock.release()
    return free


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


def _lock(fd: int) -> bool:
    if sys.platform == "win32":
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True
