"""Questions from a downstream server to a 2026-07-28 client of the gateway: ``input_required`` rounds.

A modern client cannot be sent an ``elicitation/create`` or ``sampling/createMessage`` request:
the server answers its ``tools/call`` with an ``InputRequiredResult`` and the client retries the
call with the answers and the echoed ``requestState``. The downstream call keeps running in a
task of its own meanwhile; its questions (``ask``) wait for the retry that carries their answers.
``requestState`` is a random key to that running call, useful only to the client it was given to.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types

STALE_AFTER = 600.0
"""Seconds a call may wait for its client's answers before it is cancelled."""


@dataclass
class RunningCall:
    """A downstream call of a modern client, and the questions it is waiting on."""

    task: asyncio.Task[types.CallToolResult] | None = None
    questions: asyncio.Queue[tuple[types.InputRequest, asyncio.Future[Any]]] = field(default_factory=asyncio.Queue)
    waiting: dict[str, asyncio.Future[Any]] = field(default_factory=dict)

    async def ask(self, request: types.InputRequest) -> Any:
        """Put a question to the client (answered by its next retry); the answer."""
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        await self.questions.put((request, answer))
        return await answer


class InputRounds:
    """The running calls of modern clients, by ``requestState``."""

    def __init__(self) -> None:
        self._calls: dict[str, RunningCall] = {}

    async def call(
        self, params: types.CallToolRequestParams, start: Callable[[RunningCall], Awaitable[types.CallToolResult]]
    ) -> types.CallToolResult | types.InputRequiredResult:
        """Start the call (or resume the one ``requestState`` names) until it ends or asks something."""
        state = params.request_state
        running = self._calls.pop(state, None) if state else None
        if running is None:
            running = RunningCall()
            running.task = asyncio.get_running_loop().create_task(_in_round(running, start))
        else:
            for key, answer in (params.input_responses or {}).items():
                waiting = running.waiting.pop(key, None)
                if waiting is not None and not waiting.done():
                    waiting.set_result(answer)
        return await self._next(running)

    async def _next(self, running: RunningCall) -> types.CallToolResult | types.InputRequiredResult:
        assert running.task is not None
        question = asyncio.ensure_future(running.questions.get())
        try:
            await asyncio.wait({running.task, question}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:  # the client gave up on this round: the downstream call goes too
            running.task.cancel()
            raise
        finally:
            if not question.done():
                question.cancel()
        if running.task.done() and not question.done():
            return running.task.result()
        asked: dict[str, types.InputRequest] = {}
        pending = [question.result()]
        while not running.questions.empty():
            pending.append(running.questions.get_nowait())
        for request, answer in pending:
            key = secrets.token_hex(4)
            running.waiting[key] = answer
            asked[key] = request
        state = secrets.token_urlsafe(18)
        self._calls[state] = running
        asyncio.get_running_loop().call_later(STALE_AFTER, self._expire, state, running)
        return types.InputRequiredResult(input_requests=asked, request_state=state)

    def _expire(self, state: str, running: RunningCall) -> None:
        if self._calls.get(state) is running and running.task is not None:
            del self._calls[state]
            running.task.cancel()


CURRENT: ContextVar[RunningCall | None] = ContextVar("elftia_gateway_round", default=None)
"""The modern client's running call this task works for (None: a handshake-era client)."""


async def _in_round(
    running: RunningCall, start: Callable[[RunningCall], Awaitable[types.CallToolResult]]
) -> types.CallToolResult:
    CURRENT.set(running)
    return await start(running)
