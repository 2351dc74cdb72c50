"""Crash-safe file writes and an inter-process file lock (stdlib only)."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from elftia_desktop.platform.lock import lock_fd, unlock_fd


def atomic_write_text(
    path: Path, text: str, *, mode: int = 0o600, keep_backup: bool = False, durable: bool = True
) -> None:
    """Write ``text`` to ``path`` so that a crash leaves either the old or the new file.

    The text goes to a temporary file in the same folder, is fsynced, then renamed over
    ``path`` with ``mode`` (default 0600: the app's files are the user's alone). With
    ``keep_backup`` the previous file is kept as ``path.bak`` first.
    ``durable=False`` skips the fsyncs: still atomic against a crashed process, for files that
    need not outlive a power loss (and must be cheap enough to write on the service loop).
    """
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(tmp_name)
    try:
        os.chmod(tmp, mode)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        if keep_backup and path.exists():
            backup = path.with_name(path.name + ".bak")
            _copy_durably(path, backup)
        os.replace(tmp, path)
        if durable:
            _fsync_dir(path.parent)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def _copy_durably(source: Path, target: Path) -> None:
    data = source.read_bytes()
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp_name, target)


def _fsync_dir(folder: Path) -> None:
    if sys.platform == "win32":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class FileLock:
    """An exclusive lock on ``path`` shared by threads and processes (flock / msvcrt).

    Re-entrant within one thread, so a locked read-modify-write may call helpers that lock too.
    """

    def __init__(self, path: Path) -> None:
        self._path = path
        self._thread_lock = threading.RLock()
        self._depth = 0
        self._fd: int | None = None

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """Hold the lock for the ``with`` block."""
        with self._thread_lock:
            if self._depth == 0:
                self._acquire()
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self._release()

    def _acquire(self) -> None:
        fd = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            lock_fd(fd)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    def _release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            unlock_fd(fd)
        finally:
            os.close(fd)
