"""The client side of server-to-client traffic: roots, elicitation, sampling, logs, list changes."""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote

import mcp_types as types
from mcp.client.session import (
    ClientRequestContext,
    ElicitationFnT,
    ListRootsFnT,
    LoggingFnT,
    MessageHandlerFnT,
    SamplingFnT,
)
from pydantic import FileUrl

from elftia_desktop.connections.askers import AmbiguousQuestion, CallsInFlight, asked_in
from elftia_desktop.connections.logs import format_log_message
from elftia_desktop.core.url_elicitation import consent_line, question_in, url_question, url_schema

log = logging.getLogger(__name__)

ElicitationHandler = Callable[[str, str, dict[str, Any]], Awaitable[tuple[str, dict[str, Any] | None]]]
"""``async handler(server_id, message, requested_schema) -> (action, content)``; action is
``accept`` (with content), ``decline`` or ``cancel``."""

SamplingHandler = Callable[
    [str, types.CreateMessageRequestParams],
    Awaitable[types.CreateMessageResult | types.CreateMessageResultWithTools | types.ErrorData],
]
"""``async handler(server_id, params) -> result``: answers a server's ``sampling/createMessage``
(the gateway forwards it to its own client)."""

AMBIGUOUS_QUESTION = (
    "Calls of several apps were running on this server and its request does not say which one it belongs to; "
    "declined (its calls now take turns, so ask again)."
)
SAMPLING_DECLINED = "Elftia does not let MCP servers sample from its language models (sampling is not supported)."


def folder_root(folder: str) -> types.Root:
    """A root for a local folder (``file://`` URI of its absolute path)."""
    absolute = os.path.normpath(os.path.join(os.getcwd(), os.path.expanduser(folder)))
    return types.Root(uri=FileUrl("file://" + quote(absolute)), name=os.path.basename(absolute) or absolute)


def question_of(params: types.ElicitRequestParams) -> tuple[str, dict[str, Any]]:
    """What to ask a person: the message and form schema; URL mode: an empty form carrying the address
    (``core.url_elicitation``), which each asker shows with its domain and opens only on a click."""
    if isinstance(params, types.ElicitRequestURLParams):
        return params.message, url_schema(url_question(params.url, params.elicitation_id or ""))
    schema = params.requested_schema
    return params.message, schema if isinstance(schema, dict) else schema.model_dump(by_alias=True, exclude_none=True)


class ClientCallbacks:
    """Handlers shared by every session of the pool; ``server_id`` says whose session asked.

    A question is asked in the context of the call that caused it (``askers.py``), so the handler
    routes it to that call's app; one that several apps' calls could have caused is declined.
    """

    def __init__(self) -> None:
        self.in_flight = CallsInFlight()
        """The pool's tool calls running now (``ToolCalls.call`` registers each)."""
        self.roots: list[str] = []
        self.elicitation_handler: ElicitationHandler | None = None
        self.sampling_handler: SamplingHandler | None = None

    def list_roots(self) -> ListRootsFnT:
        """The roots callback: the folders set with ``set_roots``."""

        async def callback(context: ClientRequestContext) -> types.ListRootsResult | types.ErrorData:
            """Answer ``roots/list`` with the folders set now."""
            return types.ListRootsResult(roots=[folder_root(folder) for folder in self.roots])

        return callback

    def elicit(self, server_id: str, note: Callable[[str], None] | None = None) -> ElicitationFnT:
        """The elicitation callback: the UI's handler when set, else decline; ``note`` gets the line recording
        the answer to a URL-mode question (the server's log)."""

        async def callback(
            context: ClientRequestContext, params: types.ElicitRequestParams
        ) -> types.ElicitResult | types.ErrorData:
            """Ask the UI's handler, or decline when there is none."""
            handler = self.elicitation_handler
            if handler is None:
                return types.ElicitResult(action="decline")
            try:
                place = self.in_flight.resolve(server_id)
            except AmbiguousQuestion:
                return types.ElicitResult(action="decline")
            message, schema = question_of(params)
            try:
                action, content = await asked_in(place, handler(server_id, message, schema))
            except Exception:
                log.exception("the elicitation handler failed; declining")
                return types.ElicitResult(action="decline")
            asked_url = question_in(schema)
            if asked_url is not None and note is not None:
                note(consent_line(asked_url, action))
            if action == "accept":
                form = isinstance(params, types.ElicitRequestFormParams)
                return types.ElicitResult(action="accept", content=(content or {}) if form else None)
            return types.ElicitResult(action="cancel" if action == "cancel" else "decline")

        return callback

    def sample(self, server_id: str) -> SamplingFnT:
        """The sampling callback: the sampling handler when set, else declined with a clear message."""

        async def callback(
            context: ClientRequestContext, params: types.CreateMessageRequestParams
        ) -> types.CreateMessageResult | types.CreateMessageResultWithTools | types.ErrorData:
            """Ask the sampling handler, or decline with a message saying why."""
            handler = self.sampling_handler
            if handler is None:
                return types.ErrorData(code=types.INVALID_REQUEST, message=SAMPLING_DECLINED)
            try:
                place = self.in_flight.resolve(server_id)
            except AmbiguousQuestion:
                return types.ErrorData(code=types.INVALID_REQUEST, message=AMBIGUOUS_QUESTION)
            return await asked_in(place, handler(server_id, params))

        return callback


def logging_callback(
    add_line: Callable[[str], None],
    on_message: Callable[[types.LoggingMessageNotificationParams], None] | None = None,
) -> LoggingFnT:
    """A logging callback that writes ``notifications/message`` into the server log (and to ``on_message``)."""

    async def callback(params: types.LoggingMessageNotificationParams) -> None:
        """Write one log message into the server log and pass it on."""
        add_line(format_log_message(str(params.level), params.logger, params.data))
        if on_message is not None:
            on_message(params)

    return callback


_OTHER_LIST_CHANGES: dict[type[Any], str] = {
    types.PromptListChangedNotification: "prompts",
    types.ResourceListChangedNotification: "resources",
}


def message_handler(
    on_tools_changed: Callable[[], None],
    add_line: Callable[[str], None],
    on_list_changed: Callable[[str], None] | None = None,
) -> MessageHandlerFnT:
    """A message handler: tool list changes, prompt or resource list changes (``on_list_changed(kind)``),
    transport errors."""

    async def handler(message: types.ServerNotification | Exception) -> None:
        """Route one server notification (or transport error) to the connection's hooks."""
        if isinstance(message, types.ToolListChangedNotification):
            on_tools_changed()
        elif isinstance(message, Exception):
            add_line(f"[transport] {type(message).__name__}: {message}")
        elif on_list_changed is not None and type(message) in _OTHER_LIST_CHANGES:
            on_list_changed(_OTHER_LIST_CHANGES[type(message)])

    return handler
