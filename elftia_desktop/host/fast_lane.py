"""The host's fast lane: an attached gateway's ``tools/call`` goes to the pool without the SDK's server session.

An attached gateway's session runs on the SDK's low-level ``Server`` (``links.py``): every message
is validated into a model, dispatched through the runner and its middleware, and its result
validated and dumped again on the way out. For a tool call that is most of the host's own work per
call, for nothing the call needs: the shim already answered ``initialize``, the tool name is looked
up in the catalog, and the result is the server's, passed on. So a well-formed ``tools/call`` of a
handshake-era session (not the hub) is taken here, raw, and everything else still goes to the SDK.

What the SDK's session did for such a call, the lane does the same way:

* the name is routed through the gateway's catalog (an unknown name gets the same error), the
  service refuses disabled and held-back tools, and a failing server is reported in the result;
* the result is shaped for the client's protocol version with the SDK's own per-version surface;
* the server's progress goes to this client on its request's ``progressToken``;
* ``notifications/cancelled`` for a call of the lane cancels it (the service tells the server);
  closing the connection cancels every call left;
* a server's elicitation or sampling request during the call comes to this client (``Callers``),
  raw on this connection; a client that cannot answer leaves it to the gateway's other clients.

A call to a connected stdio server goes further past the SDK: on the server's raw relay
(``McpService.relay_call``, ``connections/relay_calls.py``), and its answer is written to this
client from the server's output reader (no task per call). The result keeps the server's own
dict, less the top-level keys that later protocol revisions added (:func:`later_keys`); the
client's SDK validates it. Whatever the relay cannot take now goes the way above.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import json
import logging
from types import UnionType
from typing import Any, get_args

import anyio
import anyio.abc
import mcp_types as types
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError
from mcp.shared.jsonrpc_dispatcher import handler_exception_to_error_data
from mcp_types.methods import SERVER_RESULTS, serialize_server_result, validate_client_result
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS
from pydantic import BaseModel, ValidationError

from elftia_desktop.connections.relay_calls import Answer, RelayedCall
from elftia_desktop.core.approvals import Answer as ApprovalAnswer
from elftia_desktop.core.approvals import answer_of, approval_schema, decided
from elftia_desktop.core.errors import ElftiaError
from elftia_desktop.engine.approval import ApprovalRequest, check_approval
from elftia_desktop.gateway.announce import HANDSHAKE_VERSIONS
from elftia_desktop.gateway.core import error_result
from elftia_desktop.host.links import Callers, Channel, HostedGateway, SamplingAnswer

log = logging.getLogger(__name__)

MODERN_META = "io.modelcontextprotocol/protocolVersion"
"""The ``_meta`` key of a 2026-07-28 request (that era's calls run in the SDK's ``input_required`` rounds)."""


def _call_of(message: dict[str, Any]) -> tuple[Any, str, dict[str, Any], Any] | None:
    """``(id, name, arguments, progressToken)`` of a well-formed handshake-era ``tools/call``; else None."""
    request_id, params = message.get("id"), message.get("params")
    if not isinstance(request_id, int | str) or isinstance(request_id, bool) or not isinstance(params, dict):
        return None
    name, arguments, meta = params.get("name"), params.get("arguments"), params.get("_meta")
    if not isinstance(name, str) or not isinstance(arguments, dict | None):
        return None
    if meta is not None and (not isinstance(meta, dict) or MODERN_META in meta):
        return None
    return request_id, name, arguments or {}, (meta or {}).get("progressToken")


def _wire_keys(target: Any) -> set[str]:
    """The top-level wire keys of a result model (of each member, for a union)."""
    members = get_args(target) if isinstance(target, UnionType) else (target,)
    return {
        field.alias or name
        for model in members
        if isinstance(model, type) and issubclass(model, BaseModel)
        for name, field in model.model_fields.items()
    }


@functools.cache
def later_keys(version: str) -> frozenset[str]:
    """The top-level keys of a ``tools/call`` result that revisions after ``version`` added."""
    own = _wire_keys(SERVER_RESULTS[("tools/call", version)])
    later: set[str] = set()
    for newer in KNOWN_PROTOCOL_VERSIONS[KNOWN_PROTOCOL_VERSIONS.index(version) + 1 :]:
        later |= _wire_keys(SERVER_RESULTS.get(("tools/call", newer)))
    return frozenset(later - own)


class _Relayed:
    """One of the lane's calls on the relay: answered from the server's output reader."""

    __slots__ = ("activity", "call", "lane", "request_id", "server_id", "token")

    def __init__(self, lane: FastLane, request_id: Any, token: Any, server_id: str) -> None:
        self.lane = lane
        self.request_id = request_id
        self.token = token
        self.server_id = server_id
        self.call: RelayedCall | None = None
        self.activity: contextlib.AbstractContextManager[None] | None = None

    def answered(self, answer: Answer) -> None:
        """The call's end: the result goes to the client now; a failure is reported in a result (a task)."""
        lane = self.lane
        if lane._relayed.get(self.request_id) is not self:
            return
        if isinstance(answer, ElftiaError):
            if lane._group is not None:
                lane._group.start_soon(self._report, answer)
            return
        self.end()
        lane._write({"jsonrpc": "2.0", "id": self.request_id, "result": lane.relayed_result(answer)})

    async def _report(self, error: ElftiaError) -> None:
        try:
            result = await self.lane._gateway.failure_result(self.server_id, error)
            response = {"jsonrpc": "2.0", "id": self.request_id, "result": self.lane.shaped(result)}
        finally:
            self.end()
        await self.lane._send(response)

    def progress(self, params: dict[str, Any]) -> None:
        """The server's progress, to the client on its request's token."""
        forwarded = {"progressToken": self.token, "progress": params.get("progress", 0.0)}
        for key in ("total", "message"):
            if params.get(key) is not None:
                forwarded[key] = params[key]
        self.lane._write({"jsonrpc": "2.0", "method": "notifications/progress", "params": forwarded})

    def cancel(self) -> None:
        """The client gave the call up (or left): the server is told, nothing is answered."""
        if self.call is not None:
            self.call.cancel()
        self.end()

    def end(self) -> None:
        """The call no longer runs for this client (its activity ends)."""
        if self.lane._relayed.get(self.request_id) is self:
            del self.lane._relayed[self.request_id]
        activity, self.activity = self.activity, None
        if activity is not None:
            activity.__exit__(None, None, None)


class FastLane:
    """Takes one attached gateway's tool calls past the SDK server (see the module docstring)."""

    def __init__(self, gateway: HostedGateway, callers: Callers, channel: Channel, *, hub: bool) -> None:
        self._gateway = gateway
        self._callers = callers
        self._channel = channel
        self._hub = hub
        self._version: str | None = None
        """The session's protocol version once its (handshake) ``initialize`` passed; None before."""
        self._capabilities: dict[str, Any] = {}
        self._calls: dict[Any, anyio.CancelScope] = {}
        self._relayed: dict[Any, _Relayed] = {}
        self._questions: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._ids = itertools.count(1)
        self._group: anyio.abc.TaskGroup | None = None

    def start(self, group: anyio.abc.TaskGroup) -> None:
        """Run the lane's calls in ``group`` (cancelled when the connection ends)."""
        self._group = group
        group.start_soon(self._end_questions_with_the_connection)

    async def _end_questions_with_the_connection(self) -> None:
        """When the connection ends, the server's questions still waiting for this client fail."""
        try:
            await anyio.sleep_forever()
        finally:
            for relayed in list(self._relayed.values()):
                relayed.cancel()
            for answer in self._questions.values():
                if not answer.done():
                    answer.set_exception(MCPError(types.CONNECTION_CLOSED, "The app left before it answered."))

    def take(self, payload: bytes) -> bool:
        """Whether the lane handles this message of the client (else it goes to the SDK server)."""
        if not (b'"tools/call"' in payload or b'"initialize"' in payload or b'"notifications/cancelled"' in payload):
            return bool(self._questions) and self._answer(payload)
        try:
            message = json.loads(payload)
        except ValueError:
            return False
        if not isinstance(message, dict):
            return False
        method = message.get("method")
        if method == "initialize":
            self._note_initialize(message.get("params"))
        elif method == "tools/call" and self._version is not None and not self._hub and self._group is not None:
            call = _call_of(message)
            if call is not None and call[0] not in self._calls and call[0] not in self._relayed:
                if not self._relay(*call):
                    if asyncio.current_task() is None:
                        return False  # offered on arrival (a pipe's callback): the reader's task starts the SDK path
                    self._calls[call[0]] = anyio.CancelScope()
                    self._group.start_soon(self._call, *call)
                return True
        elif method == "notifications/cancelled":
            request_id = (message.get("params") or {}).get("requestId")
            relayed = self._relayed.get(request_id)
            if relayed is not None:
                relayed.cancel()
                return True
            scope = self._calls.get(request_id)
            if scope is not None:
                scope.cancel()  # no answer: the client gave up on it
                return True
        return False

    def _note_initialize(self, params: Any) -> None:
        if not isinstance(params, dict) or not isinstance(params.get("protocolVersion"), str):
            return
        requested = params["protocolVersion"]
        self._version = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
        capabilities = params.get("capabilities")
        self._capabilities = capabilities if isinstance(capabilities, dict) else {}

    def _write(self, message: dict[str, Any]) -> None:
        self._channel.write(json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode())

    async def _send(self, message: dict[str, Any]) -> None:
        self._write(message)
        await self._channel.drain()

    # -- calls on the relay ---------------------------------------------------------------------

    def _relay(self, request_id: Any, name: str, arguments: dict[str, Any], token: Any) -> bool:
        """Send the call on its server's relay; False when it must take the SDK path (nothing sent)."""
        listing = self._gateway.catalog.warm("tools")
        ref = listing.routes.get(name) if listing is not None else None
        record = self._gateway.service.cached_record(ref.server_id) if ref is not None else None
        if ref is None or record is None or decided(record, ref.tool_name) is not True:
            return False  # a tool that may need approval takes the SDK path, where it is checked
        relayed = _Relayed(self, request_id, token, ref.server_id)
        call = self._gateway.service.relay_call(
            ref.server_id,
            ref.tool_name,
            arguments,
            relayed.answered,
            timeout=self._gateway.call_timeout,
            on_progress=relayed.progress if token is not None else None,
        )
        if call is None:
            return False
        relayed.call = call
        relayed.activity = self._callers.calling(ref.server_id, self)
        relayed.activity.__enter__()
        self._relayed[request_id] = relayed
        return True

    def relayed_result(self, result: dict[str, Any]) -> dict[str, Any]:
        """A server's result dict as this client's protocol version has it (keys of later revisions left out)."""
        assert self._version is not None
        later = later_keys(self._version)
        if not later.isdisjoint(result) or None in result.values():
            result = {key: value for key, value in result.items() if key not in later and value is not None}
        return result

    # -- calls --------------------------------------------------------------------------------

    async def _call(self, request_id: Any, name: str, arguments: dict[str, Any], token: Any) -> None:
        scope = self._calls[request_id]
        try:
            with scope:
                response = await self.respond(request_id, name, arguments, token)
            if not scope.cancelled_caught:
                await self._send(response)
        finally:
            self._calls.pop(request_id, None)

    async def respond(self, request_id: Any, name: str, arguments: dict[str, Any], token: Any) -> dict[str, Any]:
        """The answer to a call on the SDK path (the gateway's ``call_downstream``), as a JSON-RPC response."""
        try:
            ref = await self._gateway.tool_ref(name)
            with self._callers.calling(ref.server_id, self):
                refusal = await check_approval(
                    self._gateway.service, ref.server_id, ref.tool_name, arguments, self._approval
                )
                if refusal is not None:
                    return {"jsonrpc": "2.0", "id": request_id, "result": self.shaped(error_result(refusal.text))}
                result = await self._gateway.call_downstream(ref, arguments, self._progress(token))
            return {"jsonrpc": "2.0", "id": request_id, "result": self.shaped(result)}
        except Exception as exc:  # the SDK session's boundary: every failure becomes this request's error
            error = handler_exception_to_error_data(exc)
            if error is None:
                log.exception("tool call %r failed", name)
                error = types.ErrorData(code=0, message=str(exc))
            return {"jsonrpc": "2.0", "id": request_id, "error": error.model_dump(mode="json", exclude_none=True)}

    def shaped(self, result: types.CallToolResult) -> dict[str, Any]:
        """The result as the client's protocol version has it (the SDK server's own sieve)."""
        assert self._version is not None
        dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        try:
            return serialize_server_result("tools/call", self._version, dumped)
        except ValidationError:  # as the SDK server answers a result it cannot send
            log.exception("a tool result that does not fit protocol %s", self._version)
            raise MCPError(types.INTERNAL_ERROR, "Handler returned an invalid result") from None

    def _progress(self, token: Any) -> ProgressFnT | None:
        if token is None:
            return None

        async def forward(progress: float, total: float | None, message: str | None) -> None:
            """Pass the server's progress on to this client, on its request's token."""
            params: dict[str, Any] = {"progressToken": token, "progress": progress}
            if total is not None:
                params["total"] = total
            if message is not None:
                params["message"] = message
            await self._send({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})

        return forward

    # -- the server's questions ---------------------------------------------------------------

    async def _ask(self, request: types.ElicitRequest | types.CreateMessageRequest) -> dict[str, Any]:
        """Send a request to this client; its result (``MCPError`` for an error answer)."""
        question_id = f"elftia-host-{next(self._ids)}"
        answer = self._questions[question_id] = asyncio.get_running_loop().create_future()
        try:
            await self._send(
                {
                    "jsonrpc": "2.0",
                    "id": question_id,
                    **request.model_dump(by_alias=True, mode="json", exclude_none=True),
                }
            )
            reply = await answer
        finally:
            self._questions.pop(question_id, None)
        if "error" in reply:
            raise MCPError.from_error_data(types.ErrorData.model_validate(reply["error"]))
        result = reply.get("result")
        if not isinstance(result, dict):
            raise MCPError(types.INVALID_REQUEST, "the client answered without a result")
        assert self._version is not None
        with contextlib.suppress(KeyError):  # a method that version does not have: nothing to check it against
            validate_client_result(request.method, self._version, result)
        return result

    def _answer(self, payload: bytes) -> bool:
        try:
            message = json.loads(payload)
        except ValueError:
            return False
        if not isinstance(message, dict) or "method" in message:
            return False
        answer = self._questions.get(str(message.get("id")))
        if answer is None or answer.done():
            return False
        answer.set_result(message)
        return True

    async def _approval(self, request: ApprovalRequest) -> ApprovalAnswer | None:
        """This client's answer by elicitation when it can elicit, else the window's (None: nobody to ask)."""
        if "elicitation" in self._capabilities:
            return answer_of(*await self.elicit(request.server_id, request.question(), approval_schema()))
        window = self._gateway.window_approval
        return await window(request) if window is not None else None

    async def elicit(self, server_id: str, message: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        """Ask this client (form mode); another client of the gateway when this one cannot elicit."""
        if "elicitation" not in self._capabilities:
            return await self._gateway.elicit(server_id, message, schema)
        request = types.ElicitRequest(params=types.ElicitRequestFormParams(message=message, requested_schema=schema))
        result = types.ElicitResult.model_validate(await self._ask(request), by_name=False)
        return result.action, dict(result.content) if result.content is not None else None

    async def sample(self, server_id: str, params: types.CreateMessageRequestParams) -> SamplingAnswer:
        """Forward sampling to this client; another client of the gateway when this one cannot sample."""
        if "sampling" not in self._capabilities:
            return await self._gateway.sample(server_id, params)
        with_tools = bool(params.tools) or params.tool_choice is not None
        result_type: type[types.CreateMessageResult] | type[types.CreateMessageResultWithTools] = (
            types.CreateMessageResultWithTools if with_tools else types.CreateMessageResult
        )
        return result_type.model_validate(await self._ask(types.CreateMessageRequest(params=params)), by_name=False)
