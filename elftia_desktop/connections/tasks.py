"""Awaiting a task one has just cancelled without swallowing one's own cancellation."""

from __future__ import annotations

import asyncio
from typing import Any


async def await_cancelled(task: asyncio.Future[Any]) -> None:
    """Wait until ``task`` (just cancelled) has finished, whatever its outcome.

    Its ``CancelledError`` or failure is dropped, but when the *caller* is being cancelled
    meanwhile, that cancellation is raised on: a bare ``suppress(BaseException)`` would let the
    caller carry on as if nobody had cancelled it.
    """
    try:
        await task
    except asyncio.CancelledError:
        if caller_cancelled():
            raise
    except Exception:  # the task's own failure: whoever started it reports it
        pass


def caller_cancelled() -> bool:
    """Whether the running task has been asked to stop (a ``CancelledError`` it sees is its own)."""
    current = asyncio.current_task()
    return current is not None and current.cancelling() > 0
