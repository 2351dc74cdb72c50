"""Reading an inherited pipe (a stdio gateway's stdin) on the event loop, per OS.

POSIX loops wait on a pipe directly (``loop.connect_read_pipe``). Windows' proactor loop can only
wait on a pipe opened for overlapped I/O, and the stdin a parent hands us is an anonymous pipe (or a
console, or a file) that is not: there a daemon thread reads the descriptor and feeds the loop's
``StreamReader`` (one thread hop per chunk, not per message). :func:`loop_reads_pipes` says which
one ``system`` gets; :func:`feed_from_thread` works on every OS.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import threading
from collections.abc import Callable

from elftia_desktop.platform.groups import is_windows

CHUNK = 64 * 1024
"""Bytes one ``os.read`` of the reader thread asks for."""


def loop_reads_pipes(system: str = sys.platform) -> bool:
    """Whether the event loop can wait on an inherited pipe itself (POSIX), or needs a reader thread (Windows)."""
    return not is_windows(system)


def feed_from_thread(fd: int, reader: asyncio.StreamReader, loop: asyncio.AbstractEventLoop) -> threading.Thread:
    """Copy ``fd`` into ``reader`` from a daemon thread until end of input, then feed EOF; the thread owns ``fd``.

    The thread ends at the end of input (or a read error); a process that quits while it still
    waits on an open pipe leaves it behind as a daemon thread, which the interpreter drops.
    """

    def deliver(call: Callable[..., object], *args: object) -> bool:
        """Run ``call`` on the loop; False once the loop is closed (nobody reads any more)."""
        try:
            loop.call_soon_threadsafe(call, *args)
        except RuntimeError:
            return False
        return True

    def run() -> None:
        """Read until end of input; hand every chunk, then EOF, to the loop."""
        try:
            while chunk := os.read(fd, CHUNK):
                if not deliver(reader.feed_data, chunk):
                    return
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                os.close(fd)
        deliver(reader.feed_eof)

    thread = threading.Thread(target=run, name="elftia-stdin-reader", daemon=True)
    thread.start()
    return thread
