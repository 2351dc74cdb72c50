"""Running the attached gateway on this process's stdio: SIGTERM and SIGINT, and the one-line note.

The first signal stops the shim (it closes its link, so the host cancels what this client left
running); the note names it. Standard library only.
"""

from __future__ import annotations

import signal
import sys
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from elftia_desktop.host.shim import Shim


class Stopped(Exception):
    """SIGTERM or SIGINT arrived."""


class Signals:
    """SIGTERM and SIGINT while the shim runs: the first one stops the forwarding, later ones are noted."""

    NAMES = (signal.SIGTERM, signal.SIGINT)

    def __init__(self) -> None:
        self.received: list[int] = []
        self._previous = {signum: signal.signal(signum, self._on_signal) for signum in self.NAMES}

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        first = not self.received
        self.received.append(signum)
        if first:
            raise Stopped

    def restore(self) -> None:
        """Put the previous handlers back."""
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)

    def note(self) -> None:
        """The one line that says which signal stopped the gateway (nothing when none did)."""
        if self.received:
            note(f"stopped ({signal.Signals(self.received[0]).name})")


def note(text: str) -> None:
    """One line on stderr (the protocol owns stdout)."""
    print(f"elftia gateway: {text}", file=sys.stderr, flush=True)


def serve(shim: Shim) -> int:
    """Run ``shim`` on this process's stdio until the app closes stdin or a signal stops it."""
    signals = Signals()
    try:
        try:
            shim.start_reading()
            shim.done.wait()
        except Stopped:
            pass
        finally:
            shim.close()  # a signal here (after the app closed stdin) interrupts nothing that matters
    except Stopped:
        pass
    finally:
        signals.restore()
    signals.note()
    return shim.exit_code
