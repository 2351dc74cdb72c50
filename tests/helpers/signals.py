"""Waiting for a signal that comes from another thread, without pytest-qt's ``waitSignal``.

The router's service signals are emitted on the service loop's thread, so each reaches a slot as a
queued call. ``waitSignal`` disconnects its blocker when the first one arrives; a second emission
already queued (a change seen both by its action and by the file watcher) then ran on the collected
blocker and crashed the worker (a segmentation fault in CI). Here the slot stays connected for the
life of the signal's object, so every queued call finds it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from PySide6.QtCore import SignalInstance
from pytestqt.qtbot import QtBot

WAIT = 30_000


@contextmanager
def emission(
    qtbot: QtBot, signal: SignalInstance, check: Callable[..., bool] | None = None, timeout: int = WAIT
) -> Iterator[list[tuple[Any, ...]]]:
    """Run the block, then wait until ``signal`` was emitted (with arguments ``check`` accepts) since it began."""
    seen: list[tuple[Any, ...]] = []
    signal.connect(lambda *args: seen.append(args))
    yield seen
    qtbot.waitUntil(lambda: any(check is None or check(*args) for args in seen), timeout=timeout)
