"""Whose question is it: a server's elicitation or sampling goes to the app whose request caused it.

Every tool call, prompt get and resource read of the pool runs inside :meth:`CallsInFlight.call`,
in the caller's own task, with the app that made it (:data:`APP`, set by whoever serves apps: the
host's ``Callers``, the gateway's ``Upstreams``) and a snapshot of the caller's context. A server's
question is then tied to its call in one of two ways:

* **by the request** (a 2026-07-28 server): the call's answer is ``input_required`` and the
  session's own driver asks the callbacks in the calling task (``EraSession._drive``), so the
  question runs in that call's context as it is: exactly that app is asked.
* **by elimination** (a handshake-era server): ``elicitation/create`` / ``sampling/createMessage``
  comes on its own, read by the session's receive task, and nothing on the wire names the request
  it belongs to (the SDK's ``related_request_id`` is transport metadata, never sent on stdio). It
  goes to the app with calls running on that server, asked in the context of its latest call. With
  calls of several apps running there, nobody can be told apart: the question is declined, never
  handed to a wrong app. A server that asked this way once is marked, and from then on calls of
  different apps to it take turns (one app's calls still run together), so each of its questions has
  exactly one possible app.

Progress and cancellation need none of this: the SDK ties them to the request (progress token,
request id), and the pool's callers pass them on per call.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

APP: contextvars.ContextVar[object | None] = contextvars.ContextVar("elftia_asking_app", default=None)
"""The app a task's calls are made for (any object equal for one app); None: this process's own."""


@dataclass(eq=False)
class _Call:
    """One call in flight: for whom, and the context its questions are asked in."""

    server_id: str
    app: object | None
    context: contextvars.Context = field(default_factory=contextvars.copy_context)


CALL: contextvars.ContextVar[_Call | None] = contextvars.ContextVar("elftia_call_in_flight", default=None)
"""The pool's call the current task runs (None in a session's own tasks)."""


class AmbiguousQuestion(Exception):
    """Calls of several apps run on the server that asked, and its question does not say whose it is."""


class CallsInFlight:
    """The pool's tool calls running now, per server, and which servers ask without naming the request."""

    def __init__(self) -> None:
        self._calls: dict[str, list[_Call]] = {}
        self._unrelated: set[str] = set()
        self._turn: dict[str, asyncio.Event] = {}

    def asks_unrelated(self, server_id: str) -> bool:
        """Whether ``server_id`` asked outside its calls' own tasks (its calls of different apps take turns)."""
        return server_id in self._unrelated

    def running(self, server_id: str) -> int:
        """How many calls run on ``server_id`` now."""
        return len(self._calls.get(server_id, ()))

    def _apps(self, server_id: str) -> set[object | None]:
        return {call.app for call in self._calls.get(server_id, ())}

    @asynccontextmanager
    async def call(self, server_id: str) -> AsyncIterator[None]:
        """While the current task's call runs on ``server_id`` (after its app's turn, on a marked server)."""
        app = APP.get()
        while server_id in self._unrelated and self._apps(server_id) - {app}:
            await self._turn.setdefault(server_id, asyncio.Event()).wait()
        entry = _Call(server_id, app)
        entry.context.run(CALL.set, entry)
        calls = self._calls.setdefault(server_id, [])
        calls.append(entry)
        token = CALL.set(entry)
        try:
            yield
        finally:
            CALL.reset(token)
            calls.remove(entry)
            if not calls:
                del self._calls[server_id]
                turn = self._turn.pop(server_id, None)
                if turn is not None:
                    turn.set()

    def resolve(self, server_id: str) -> contextvars.Context | None:
        """The context to ask ``server_id``'s question in: None (right here: in its own call's task, or no
        call runs) or the only app's latest call's; :class:`AmbiguousQuestion` when calls of several apps run."""
        current = CALL.get()
        if current is not None and current.server_id == server_id:
            return None  # the question runs in its own call's task
        calls = self._calls.get(server_id, [])
        if not calls:
            return None
        self._unrelated.add(server_id)
        if len(self._apps(server_id)) > 1:
            log.warning("server %s asked during calls of several apps; declined (its calls now take turns)", server_id)
            raise AmbiguousQuestion(server_id)
        return calls[-1].context.copy()


async def asked_in(place: contextvars.Context | None, question: Awaitable[T]) -> T:
    """Await ``question`` in ``place`` (a call's context, see :meth:`CallsInFlight.resolve`), or right here."""
    if place is None:
        return await question

    async def ask() -> T:
        """The question, awaited in the call's context."""
        return await question

    task = asyncio.get_running_loop().create_task(ask(), context=place)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        task.cancel()
        raise
