"""A POST whose event stream would carry nothing but its answer is answered with that answer as plain JSON.

Streamable HTTP lets a server answer a request either with ``application/json`` (the one response)
or with a ``text/event-stream`` (notifications and the server's own requests first, the response
last). The SDK's session manager commits to the stream for every request of the handshake era
(only its ``json_response`` mode answers JSON, and that mode drops a request's notifications and
its elicitation or sampling). :class:`PlainAnswer` wraps the ``send`` of one POST and holds the
stream's headers back until its first event, :data:`RELEASE_AFTER` at most: when that event is already
the response, the client gets it as one JSON body (the same bytes the SDK's JSON mode sends, the same
status and ``Mcp-Session-Id``); anything else first (a notification, a question to the app, an end
without an event) or no event in time releases the stream unchanged. The SDK's own 2026-07-28 path
chooses the same way (with 15 s).

Why it matters: SDK clients stop reading an event stream at the response, so the connection cannot
be reused and every call opens a new one; a JSON body is read to its end and the connection stays.
"""

from __future__ import annotations

import asyncio
import json
from typing import Final

from starlette.types import Message, Send

EVENT_PREFIX: Final = b"event: message\r\ndata: "
EVENT_END: Final = b"\r\n\r\n"
ANSWER_KEYS: Final = (',"result":', ',"error":')
"""What follows the id of a response or error as the SDK serializes them (``jsonrpc``, ``id``, then these)."""

RELEASE_AFTER: Final = 0.1
"""Seconds a stream's headers wait for its first event; a call with none by then gets its stream as before.
So an SDK client whose host dies during a longer call sees that response break (an error for that call);
with no headers yet, the SDK's client fails its whole transport instead, as against any server answering JSON."""

_decoder = json.JSONDecoder()


def lone_answer(body: bytes) -> bytes | None:
    """The JSON-RPC response or error that ``body`` (one event-stream chunk) carries alone, else None."""
    if not (body.startswith(EVENT_PREFIX) and body.endswith(EVENT_END)):
        return None
    data = body[len(EVENT_PREFIX) : -len(EVENT_END)]
    if b"\n" in data or b"\r" in data or not data.startswith(b'{"jsonrpc":"2.0","id":'):
        return None
    text = data.decode("utf-8", errors="replace")
    try:
        _id, end = _decoder.raw_decode(text, len('{"jsonrpc":"2.0","id":'))
    except ValueError:
        return None
    return data if text.startswith(ANSWER_KEYS, end) else None


def _is_event_stream(start: Message) -> bool:
    return any(name == b"content-type" and value.startswith(b"text/event-stream") for name, value in start["headers"])


class PlainAnswer:
    """The ``send`` of one POST: an event stream whose first event is the response goes out as that JSON.

    The stream's headers wait :data:`RELEASE_AFTER` at most; :meth:`finish` once the app has returned.
    """

    def __init__(self, send: Send) -> None:
        self._send = send
        self._held: Message | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._released: asyncio.Future[None] | None = None
        self._passing = False
        self._answered = False

    async def __call__(self, message: Message) -> None:
        """Send ``message``, or hold it (the stream's headers), or drop it (the stream's end after the answer)."""
        if self._answered:
            return
        held, self._held = self._held, None
        if held is not None:
            self._stop_timer()
            answer = lone_answer(message.get("body", b""))
            if answer is not None:
                self._answered = True
                await self._answer(held, answer)
                return
            self._passing = True
            await self._send(held)
        elif not self._passing and message["type"] == "http.response.start" and _is_event_stream(message):
            self._held = message
            self._timer = asyncio.get_running_loop().call_later(RELEASE_AFTER, self._release)
            return
        if self._released is not None:
            await self._released  # the headers the timer let go are out before anything else
        await self._send(message)

    async def finish(self) -> None:
        """The app returned: no timer outlives it (held headers with nothing after them are dropped)."""
        self._stop_timer()
        self._held = None
        if self._released is not None:
            await asyncio.wait([self._released])
            if not self._released.cancelled():
                self._released.exception()  # a failed send: the app's own sends after it failed alike

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _release(self) -> None:
        """The first event is late: the stream goes out as the SDK made it."""
        held, self._held = self._held, None
        self._timer = None
        if held is not None:
            self._passing = True
            self._released = asyncio.ensure_future(self._send(held))

    async def _answer(self, start: Message, answer: bytes) -> None:
        kept = [(name, value) for name, value in start["headers"] if name not in (b"content-type", b"content-length")]
        headers = [*kept, (b"content-type", b"application/json"), (b"content-length", str(len(answer)).encode())]
        await self._send({"type": "http.response.start", "status": start["status"], "headers": headers})
        await self._send({"type": "http.response.body", "body": answer})
