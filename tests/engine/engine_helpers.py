"""Helpers for the engine tests: is a process gone, and wait until it is."""

from __future__ import annotations

import os
import time
from pathlib import Path


def is_alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[-1].split()[0]
    except OSError:
        return True
    return state not in ("Z", "X")


def wait_gone(pid: int, deadline_s: float = 30.0) -> bool:
    """Poll until ``pid`` is gone or the (generous) deadline passes; whether it is gone."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if not is_alive(pid):
            return True
        time.sleep(0.05)
    return not is_alive(pid)


async def await_gone(pid: int, deadline_s: float = 30.0) -> bool:
    """:func:`wait_gone` for async tests (polls without blocking the loop)."""
    import asyncio

    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if not is_alive(pid):
            return True
        await asyncio.sleep(0.05)
    return not is_alive(pid)
