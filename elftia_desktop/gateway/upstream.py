"""The gateway's clients ("upstream"): who is connected, who asked what, and talking back to them.

Each upstream connection is remembered from its first message until it closes (the SDK unwinds
the connection's exit stack, where a callback removes it). Notifications (``list_changed``,
log messages) go to every connection. A downstream server's elicitation or sampling request is
sent to the client whose tool call caused it (on that call's stream; the pool asks in that call's
context, ``connections/askers.py``), never to another client; with no call running on that
server, to any client that supports it; without one it is declined.
"""

from __future__ import annotations

import contextlib
import logging
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    PromptsListChanged,
    ResourcesListChanged,
    ServerEvent,
    ToolsListChanged,
)
from mcp.shared.message import ServerMessageMetadata
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from elftia_desktop.connections.askers import APP
from elftia_desktop.core.url_elicitation import question_in
from elftia_desktop.gateway.input_rounds import CURRENT, RunningCall

log = logging.getLogger(__name__)

_CALL: ContextVar[_Call | None] = ContextVar("elftia_upstream_call", default=None)
"""The client's call the current task runs (set by :meth:`Upstreams.calling`)."""

LOG_LEVELS: tuple[types.LoggingLevel, ...] = (
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
)
_EVENTS: dict[str, ServerEvent] = {
    "tools": ToolsListChanged(),
    "prompts": PromptsListChanged(),
    "resources": ResourcesListChanged(),
}
ELICITATION = types.ClientCapabilities(elicitation=types.ElicitationCapability())
URL_ELICITATION = types.ClientCapabilities(
    elicitation=types.ElicitationCapability(url=types.UrlElicitationCapability())
)
SAMPLING = types.ClientCapabilities(sampling=types.SamplingCapability())


@dataclass
class Upstream:
    """One connected client."""

    session: ServerSession
    """A session of one of its requests: its standalone channel reaches the client at any time."""
    log_level: types.LoggingLevel = "debug"
    """Log messages below this level are not sent (``logging/setLevel``)."""


@dataclass(frozen=True)
class _Call:
    session: ServerSession
    request_id: types.RequestId | None
    running: RunningCall | None = None
    """A modern client's call: questions go into its ``input_required`` rounds."""


def _connection_of(session: ServerSession) -> Any:
    # The SDK has no public accessor from a handler's session to its Connection (the object whose
    # exit stack runs when the client goes away); ServerSession keeps it as ``_connection``.
    return session._connection


class Upstreams:
    """The connected clients of one gateway."""

    def __init__(self, on_last_closed: Callable[[], Awaitable[None]] | None = None) -> None:
        self.bus = InMemorySubscriptionBus()
        """List changes for modern clients' ``subscriptions/listen`` streams."""
        self._by_connection: dict[int, Upstream] = {}
        self._calls: dict[str, list[_Call]] = {}
        self._on_last_closed = on_last_closed

    def __len__(self) -> int:
        return len(self._by_connection)

    def track(self, ctx: ServerRequestContext[Any, Any]) -> Upstream:
        """The upstream of this request, remembered on first sight (a modern client's request stands alone)."""
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return Upstream(ctx.session)  # no connection to remember: it hears changes by listening
        connection = _connection_of(ctx.session)
        key = id(connection)
        upstream = self._by_connection.get(key)
        if upstream is None:
            upstream = self._by_connection[key] = Upstream(ctx.session)

            async def forget() -> None:
                """Drop this client's upstream; the last one closing runs ``on_last_closed``."""
                self._by_connection.pop(key, None)
                if not self._by_connection and self._on_last_closed is not None:
                    await self._on_last_closed()

            connection.exit_stack.push_async_callback(forget)
        return upstream

    @contextlib.contextmanager
    def calling(self, server_id: str, ctx: ServerRequestContext[Any, Any]) -> Iterator[None]:
        """While a request runs on ``server_id``: that server's questions go to this request's client."""
        call = _Call(ctx.session, ctx.request_id, CURRENT.get())
        calls = self._calls.setdefault(server_id, [])
        calls.append(call)
        tokens = (_CALL.set(call), APP.set(ctx.session))
        try:
            yield
        finally:
            _CALL.reset(tokens[0])
            APP.reset(tokens[1])
            calls.remove(call)
            if not calls:
                self._calls.pop(server_id, None)

    def _target(self, server_id: str, capability: types.ClientCapabilities) -> _Call | None:
        """The call whose question this is (asked in its context, ``connections/askers.py``), if its client can
        answer; with no call running on ``server_id``, any client that can."""
        calls = self._calls.get(server_id, [])
        call = _CALL.get()
        if call is not None and call in calls:
            able = call.running is not None or call.session.check_client_capability(capability)
            return call if able else None
        if calls:
            return None  # the call of a client of another gateway (or of none): not for these clients
        for upstream in self._by_connection.values():
            if upstream.session.check_client_capability(capability):
                return _Call(upstream.session, None)
        return None

    async def broadcast(self, kinds: tuple[str, ...]) -> None:
        """Send ``notifications/{kind}/list_changed`` for each kind to every client (modern ones: to their listens)."""
        for kind in kinds:
            await self.bus.publish(_EVENTS.get(kind, _EVENTS["resources"]))
        for upstream in list(self._by_connection.values()):
            for kind in kinds:
                try:
                    if kind == "tools":
                        await upstream.session.send_tool_list_changed()
                    elif kind == "prompts":
                        await upstream.session.send_prompt_list_changed()
                    else:
                        await upstream.session.send_resource_list_changed()
                except Exception as exc:  # a client that went away meanwhile
                    log.debug("list_changed not delivered: %r", exc)

    async def log_message(self, level: types.LoggingLevel, logger: str, data: Any) -> None:
        """Pass a downstream server's log message to every client that wants that level."""
        rank = LOG_LEVELS.index(level) if level in LOG_LEVELS else 0
        for upstream in list(self._by_connection.values()):
            if rank < LOG_LEVELS.index(upstream.log_level):
                continue
            notification = types.LoggingMessageNotification(
                params=types.LoggingMessageNotificationParams(level=level, logger=logger, data=data)
            )
            try:
                await upstream.session.send_notification(notification)
            except Exception as exc:
                log.debug("log message not delivered: %r", exc)

    async def elicit(self, server_id: str, message: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        """Ask the client behind ``server_id``'s running call; declined when no client can. A URL question
        goes on as one (URL mode, to a client that declared it), a form as a form."""
        asked_url = question_in(schema)
        call = self._target(server_id, ELICITATION if asked_url is None else URL_ELICITATION)
        if call is None:
            return "decline", None
        params: types.ElicitRequestParams = types.ElicitRequestFormParams(message=message, requested_schema=schema)
        if asked_url is not None:
            elicitation_id = asked_url.elicitation_id or uuid.uuid4().hex  # required on the handshake era's wire
            params = types.ElicitRequestURLParams(message=message, url=asked_url.url, elicitation_id=elicitation_id)
        if call.running is not None:
            request = types.ElicitRequest(params=params)
            result = types.ElicitResult.model_validate(_plain(await call.running.ask(request)))
            return result.action, dict(result.content) if result.content is not None else None
        metadata = ServerMessageMetadata(related_request_id=call.request_id)
        result = await call.session.send_request(
            types.ElicitRequest(params=params), types.ElicitResult, metadata=metadata
        )
        return result.action, dict(result.content) if result.content is not None else None

    async def ask_caller(
        self, ctx: ServerRequestContext[Any, Any], message: str, schema: dict[str, Any]
    ) -> tuple[str, dict[str, Any] | None] | None:
        """Ask the client of this very request (form mode); None when it did not declare elicitation."""
        if not ctx.session.check_client_capability(ELICITATION):
            return None
        running = CURRENT.get()
        if running is not None:
            request = types.ElicitRequest(
                params=types.ElicitRequestFormParams(message=message, requested_schema=schema)
            )
            result = types.ElicitResult.model_validate(_plain(await running.ask(request)))
        else:
            result = await ctx.session.elicit_form(message, schema, related_request_id=ctx.request_id)
        return result.action, dict(result.content) if result.content is not None else None

    async def sample(
        self, server_id: str, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult | types.CreateMessageResultWithTools | types.ErrorData:
        """Forward a downstream ``sampling/createMessage`` to a client that supports sampling."""
        call = self._target(server_id, SAMPLING)
        if call is None:
            return types.ErrorData(
                code=types.INVALID_REQUEST, message="The app connected to Elftia's gateway does not support sampling."
            )
        with_tools = bool(params.tools) or params.tool_choice is not None
        result_type: type[types.CreateMessageResult] | type[types.CreateMessageResultWithTools] = (
            types.CreateMessageResultWithTools if with_tools else types.CreateMessageResult
        )
        if call.running is not None:
            return result_type.model_validate(_plain(await call.running.ask(types.CreateMessageRequest(params=params))))
        return await call.session.send_request(
            types.CreateMessageRequest(params=params),
            result_type,
            metadata=ServerMessageMetadata(related_request_id=call.request_id),
        )


def _plain(answer: Any) -> Any:
    """A client's answer as plain data (the SDK may have parsed it into any arm of the response union)."""
    return answer.model_dump(by_alias=True, exclude_none=True) if hasattr(answer, "model_dump") else answer
