"""SIGTERM and SIGINT for the in-process gateway (``serve --no-daemon``, ``serve --http``): stop, clean up, one line.

The SDK's stdio transport reads stdin in a worker thread that no cancellation reaches, so a
signal could not end a gateway whose app keeps stdin open. :class:`StdinRelay` gives the SDK a
pipe instead of fd 0 (a daemon thread copies stdin into it): a signal closes the pipe, and the
gateway ends exactly as when the app closes stdin (its servers stopped on the way out). For HTTP,
a signal asks uvicorn to shut down (``stop``). Either way the gateway prints one line, ``elftia
gateway: stopped (SIGTERM)``, and leaves nothing running.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator

NAMES = (signal.SIGTERM, signal.SIGINT)


class StdinRelay:
    """Stdin through a pipe this process can close: ``sys.stdin`` reads the pipe while the relay runs."""

    def __init__(self) -> None:
        self._read_end, self._write_end = os.pipe()
        self._lock = threading.Lock()
        self._closed = False

    def _copy(self) -> None:
        try:
            while (chunk := os.read(0, 1 << 16)) and not self._closed:
                while chunk:
                    chunk = chunk[os.write(self._write_end, chunk) :]
        except OSError:
            pass
        self.close()

    def close(self) -> None:
        """End of input for the reader of ``sys.stdin`` (the gateway then stops as when the app left).

        The pipe's write end is replaced by the null device rather than closed: its number stays
        valid for a copy in progress, and never names another file.
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, self._write_end)
        os.close(null)

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        """``sys.stdin`` reads the relay's pipe for the block (fd 0 itself is left as it is)."""
        previous = sys.stdin
        with open(self._read_end, encoding="utf-8", errors="replace") as pipe:
            sys.stdin = pipe
            threading.Thread(target=self._copy, name="stdin-relay", daemon=True).start()
            try:
                yield
            finally:
                sys.stdin = previous
                self.close()


class StopSignals:
    """The first SIGTERM or SIGINT runs ``stop`` (on the loop); the signal is named in the closing note."""

    def __init__(self, loop: asyncio.AbstractEventLoop, stop: asyncio.Event, relay: StdinRelay | None) -> None:
        self.received: int | None = None
        self._loop = loop
        self._stop = stop
        self._relay = relay
        for signum in NAMES:
            with contextlib.suppress(NotImplementedError, RuntimeError):  # no loop signal handlers on Windows
                loop.add_signal_handler(signum, self._on_signal, signum)

    def _on_signal(self, signum: int) -> None:
        if self.received is None:
            self.received = signum
        self._stop.set()
        if self._relay is not None:
            self._relay.close()

    def remove(self) -> None:
        """Put the default handling back."""
        for signum in NAMES:
            with contextlib.suppress(NotImplementedError, RuntimeError):
                self._loop.remove_signal_handler(signum)

    def note(self) -> None:
        """``elftia gateway: stopped (SIGTERM)`` on stderr when a signal stopped the gateway."""
        if self.received is not None:
            print(f"elftia gateway: stopped ({signal.Signals(self.received).name})", file=sys.stderr, flush=True)
