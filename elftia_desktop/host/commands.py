"""A ``command`` connection to the host: CLI requests and their answers.

The requests: ``call``, ``test``, ``discover`` and ``logs`` of a server (on the host's pool: the
server's one process, its tool cache, its log), ``tasks`` (the pool's tasks), and ``status``,
``stop``, ``handover``, ``stay`` of the host.

Requests and answers are ``{"op": ...}`` frames. A ``call`` runs in its own task while the
connection keeps reading: the server's questions go to the client as ``{"op": "elicit"}`` and come
back as ``{"op": "elicitResult"}``, and the states of a task the call became go as ``{"op":
"taskStatus"}``; when the client goes away, its running call is cancelled (and the SDK cancels it
on the server; a task it became is cancelled with ``tasks/cancel``). ``handover`` asks a daemon to
give the pool up to the window that starts (``host.py``). An error is ``{"op": "error", "kind": <class in
core.errors>, "message": ...}`` so the CLI raises the same error the in-process path would.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types as types

from elftia_desktop.application.server_logs import server_logs
from elftia_desktop.connections.events import LogLine, TaskStatus
from elftia_desktop.connections.service import McpService
from elftia_desktop.connections.task_book import watching
from elftia_desktop.core.approvals import Answer, answer_of, approval_schema
from elftia_desktop.core.argument_check import check
from elftia_desktop.core.errors import ElftiaError, ServerAuthRequired
from elftia_desktop.core.models import ConnectionState, McpServerRecord
from elftia_desktop.engine.approval import ApprovalRequest, check_approval
from elftia_desktop.host import wire
from elftia_desktop.host.links import Callers, SamplingAnswer, read_frame

log = logging.getLogger(__name__)

StatusFn = Callable[[], Awaitable[dict[str, Any]]]


class CommandLink:
    """One attached CLI command."""

    def __init__(
        self,
        service: McpService,
        callers: Callers,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        status: StatusFn,
        stop: Callable[[], None],
        handover: Callable[[], None] | None = None,
        stay: Callable[[], None] | None = None,
    ) -> None:
        """``stop`` and ``handover`` raise an ``ElftiaError`` when this host does not grant them; ``stay``
        makes a daemon stay when empty."""
        self._service = service
        self._callers = callers
        self._reader = reader
        self._writer = writer
        self._status = status
        self._stop = stop
        self._handover = handover
        self._stay = stay
        self._questions: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._ids = itertools.count(1)
        self._tasks: set[asyncio.Task[None]] = set()

    async def send(self, message: dict[str, Any]) -> None:
        """One answer to the client (a client that left meanwhile is ignored)."""
        self._writer.write(wire.encode(message))
        with contextlib.suppress(ConnectionError):
            await self._writer.drain()

    async def run(self) -> None:
        """Read requests until the client closes; then cancel what it left running."""
        try:
            while (payload := await read_frame(self._reader)) is not None:
                self._dispatch(wire.decode(payload))
        finally:
            for task in list(self._tasks):
                task.cancel()
            for question in self._questions.values():
                question.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)

    def _dispatch(self, message: dict[str, Any]) -> None:
        op = message.get("op")
        if op == "elicitResult":
            question = self._questions.pop(int(message.get("id") or 0), None)
            if question is not None and not question.done():
                question.set_result(message)
            return
        if op == "logs" and message.get("follow"):
            self._spawn(self._follow_logs(message))
            return
        work = {
            "call": self._call,
            "test": self._test,
            "discover": self._discover,
            "logs": self._logs,
            "status": self._send_status,
            "tasks": self._tasks_of_pool,
            "stop": self._request_stop,
            "handover": self._request_handover,
            "stay": self._request_stay,
        }.get(str(op))
        if work is None:
            self._spawn(self.send({"op": "error", "kind": "WireError", "message": f"unknown request {op!r}"}))
            return
        self._spawn(self._answer(work, message))

    def _spawn(self, coro: Awaitable[None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _answer(
        self, work: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]], request: dict[str, Any]
    ) -> None:
        try:
            answer = await work(request)
        except ElftiaError as exc:
            answer = _error(exc)
        except Exception as exc:  # a bug: the cause goes to the host's log, the client gets an answer still
            log.exception("the %s request failed", request.get("op"))
            answer = {"op": "error", "kind": "ElftiaError", "message": f"the pool host failed: {exc}"}
        await self.send(answer)

    async def _send_status(self, request: dict[str, Any]) -> dict[str, Any]:
        return {"op": "status", **(await self._status())}

    async def _tasks_of_pool(self, request: dict[str, Any]) -> dict[str, Any]:
        """The tasks the pool follows and followed (an earlier host's unfinished ones followed again)."""
        return {"op": "tasks", "tasks": [task.as_json() for task in await self._service.list_tasks()]}

    async def _request_stop(self, request: dict[str, Any]) -> dict[str, Any]:
        self._stop()
        return {"op": "stopping", "pid": os.getpid()}

    async def _request_handover(self, request: dict[str, Any]) -> dict[str, Any]:
        if self._handover is None:
            return {"op": "error", "kind": "WireError", "message": "this host does not hand over"}
        self._handover()
        return {"op": "handingOver", "pid": os.getpid()}

    async def _request_stay(self, request: dict[str, Any]) -> dict[str, Any]:
        if self._stay is not None:
            self._stay()
        return {"op": "staying", "pid": os.getpid()}

    async def _call(self, request: dict[str, Any]) -> dict[str, Any]:
        """Check the arguments against the tool's input schema (nothing is sent when they do not fit), then call."""
        record = await self._find(request)
        tool_name, arguments = str(request.get("tool")), dict(request.get("arguments") or {})
        timeout = request.get("timeout")
        with self._callers.calling(record.id, self):
            tool = next((t for t in await self._service.list_server_tools(record.id) if t.name == tool_name), None)
            issues = check(tool.input_schema, arguments) if tool is not None else []  # unknown: call_tool says so
            if issues:
                return {"op": "badArguments", "issues": [{"path": list(i.path), "message": i.message} for i in issues]}
            refusal = await check_approval(self._service, record.id, tool_name, arguments, self._ask_approval)
            if refusal is not None:
                return {
                    "op": "result",
                    "result": {"isError": True, "content": [{"type": "text", "text": refusal.text}]},
                }
            with watching(self._task_status):  # the command prints them; its going away cancels the task
                response = await self._service.call_tool(
                    record.id, tool_name, arguments, timeout=float(timeout) if timeout else None
                )
        return {"op": "result", "result": response.to_json_dict()}

    def _task_status(self, status: TaskStatus) -> None:
        """A state of the call's task, to the command as a ``taskStatus`` frame (in order, before the result)."""
        self._writer.write(wire.encode({"op": "taskStatus", **status.as_json()}))

    async def _ask_approval(self, request: ApprovalRequest) -> Answer:
        """The command's answer to an approval question (its terminal, ``--yes``, or a refusal)."""
        return answer_of(*await self.elicit(request.server_id, request.question(), approval_schema()))

    async def _find(self, request: dict[str, Any]) -> McpServerRecord:
        return await asyncio.to_thread(self._service.catalog.find, str(request.get("server")))

    def _no_sign_in_here(self, record: McpServerRecord) -> None:
        """A server that wants a sign-in: the command signs in in place, in its terminal (``ServerAuthRequired``)."""
        if self._service.connection_state(record.id) is ConnectionState.AUTH_REQUIRED:
            failure = self._service.connection_failure(record.id)
            raise ServerAuthRequired(failure.reason if failure else "sign-in required", record.id)

    async def _test(self, request: dict[str, Any]) -> dict[str, Any]:
        """Test the host's own connection to the server (the one every app uses): list its tools anew."""
        record = await self._find(request)
        result = await self._service.test(record.id)
        self._no_sign_in_here(record)
        held = sorted(self._service.tool_guard.held.get(record.id, ()))
        return {
            "op": "tested",
            "result": result.to_json_dict(),
            "disabledTools": record.disabled_tools,
            "heldTools": held,
        }

    async def _discover(self, request: dict[str, Any]) -> dict[str, Any]:
        """Everything the server offers, asked on the host's connection."""
        record = await self._find(request)
        result = await self._service.discover(record.id)
        self._no_sign_in_here(record)
        return {"op": "discovered", "result": result.to_json_dict(), "disabledTools": record.disabled_tools}

    async def _logs(self, request: dict[str, Any]) -> dict[str, Any]:
        """The host's log of the server (started first when it does not run)."""
        record = await self._find(request)
        report = await server_logs(self._service, record.id)
        self._no_sign_in_here(record)
        return {"op": "logs", "serverId": record.id, "lines": report.lines, "error": report.error}

    async def _follow_logs(self, request: dict[str, Any]) -> None:
        """``logs --follow``: the log so far, then each new line until the client goes; the server is held
        meanwhile (never idle-stopped)."""
        try:
            answer = await self._logs(request)
        except ElftiaError as exc:
            await self.send(_error(exc))
            return
        server_id = answer["serverId"]
        new_lines: asyncio.Queue[str] = asyncio.Queue()

        def on_log(event: LogLine) -> None:
            """Queue a new line of this server (subscribed with no wait after the log so far: none is lost)."""
            if event.server_id == server_id:
                new_lines.put_nowait(event.line)

        unsubscribe = self._service.events.on(LogLine, on_log)
        try:
            await self.send(answer)
            if answer["error"] is not None:
                return
            with self._callers.listening(server_id):
                while True:
                    await self.send({"op": "logLine", "line": await new_lines.get()})
        finally:
            unsubscribe()

    async def elicit(self, server_id: str, message: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        """Ask the CLI that made the call; its answer comes back on this connection."""
        question_id = next(self._ids)
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._questions[question_id] = answer
        await self.send(
            {"op": "elicit", "id": question_id, "serverId": server_id, "message": message, "schema": schema}
        )
        reply = await answer
        content = reply.get("content")
        return str(reply.get("action") or "decline"), content if isinstance(content, dict) else None

    async def sample(self, server_id: str, params: types.CreateMessageRequestParams) -> SamplingAnswer:
        """The CLI has no model to sample from: refused, as in the in-process CLI."""
        return types.ErrorData(code=types.INVALID_REQUEST, message="The command line does not support sampling.")


def _error(exc: ElftiaError) -> dict[str, Any]:
    """An ``ElftiaError`` as an answer: the CLI raises the same class with the same message and details."""
    return {"op": "error", "kind": type(exc).__name__, "message": str(exc), "details": exc.details}
