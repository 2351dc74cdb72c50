"""CLI commands run through the pool host: ``call``, ``test``, ``discover``, ``logs``, and the daemon's status and stop.

:func:`call` sends one ``call`` request and answers the server's questions on the way (with the
``answer`` the CLI gives: ask on a terminal, ``--elicit accept-defaults|decline``).
A failure comes back as the ``core.errors`` class the in-process path raises, so exit codes and
messages are the same. Interrupting the command closes the socket, and the host cancels the call.
Standard library only (``core.errors`` and ``connections.events`` are plain Python); a task's states
(``taskStatus`` frames, the ``tasks`` answer) are read into :class:`TaskStatus` here, nowhere else.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from typing import Any

from elftia_desktop.connections.events import TaskStatus
from elftia_desktop.core import errors
from elftia_desktop.host import attach, wire

Answer = Callable[[str, str, dict[str, Any]], tuple[str, dict[str, Any] | None]]


class BadArguments(Exception):
    """The arguments do not fit the tool's input schema: nothing was sent (``issues``: path and message of each)."""

    def __init__(self, issues: list[dict[str, Any]]) -> None:
        super().__init__(f"{len(issues)} argument(s) do not fit the tool's input schema")
        self.issues = issues


def _raise(message: dict[str, Any]) -> None:
    kind = str(message.get("kind") or "")
    error_class = getattr(errors, kind, None)
    if not (isinstance(error_class, type) and issubclass(error_class, errors.ElftiaError)):
        error_class = errors.ElftiaError
    error = error_class(str(message.get("message") or "the pool host reported an error"))
    error.details = str(message.get("details") or "")  # the long part (the PATH searched), as the host had it
    raise error


def request(
    sock: socket.socket,
    message: dict[str, Any],
    answer: Answer | None = None,
    on_task: Callable[[TaskStatus], None] | None = None,
) -> dict[str, Any]:
    """Send one request and read until its answer, answering the server's questions on the way
    (and showing a task's states with ``on_task``)."""
    sock.sendall(wire.encode(message))
    while True:
        payload = wire.read_frame(sock)
        if payload is None:
            raise errors.ToolCallError("Elftia's pool host stopped before it answered; try again.")
        reply = wire.decode(payload)
        op = reply.get("op")
        if op == "elicit":
            action, content = (
                answer(str(reply.get("serverId")), str(reply.get("message")), dict(reply.get("schema") or {}))
                if answer is not None
                else ("decline", None)
            )
            sock.sendall(
                wire.encode({"op": "elicitResult", "id": reply.get("id"), "action": action, "content": content})
            )
            continue
        if op == "taskStatus":
            if on_task is not None:
                on_task(TaskStatus.from_json(reply))
            continue
        if op == "error":
            _raise(reply)
        return reply


def call(
    server: str,
    tool: str,
    arguments: dict[str, Any],
    timeout: float | None,
    answer: Answer,
    on_task: Callable[[TaskStatus], None] | None = None,
) -> dict[str, Any]:
    """Call ``server``'s ``tool`` through the host (started on demand); the response as JSON. A task's
    states go to ``on_task``; closing the connection (Ctrl+C) makes the host cancel the call and its task.

    ``attach.NoHost`` when no host could be reached; ``BadArguments`` when the arguments do not fit
    the tool's schema; errors of ``core.errors`` as the in-process call.
    """
    sock, _reply = attach.connect("command")
    with sock:
        request_message = {"op": "call", "server": server, "tool": tool, "arguments": arguments, "timeout": timeout}
        reply = request(sock, request_message, answer, on_task)
    if reply.get("op") == "badArguments":
        raise BadArguments(list(reply.get("issues") or []))
    return dict(reply["result"])


def tasks() -> list[TaskStatus] | None:
    """The tasks of the running host's pool (their latest states); None when no host runs."""
    try:
        sock, _reply = attach.connect("command", start=False)
    except attach.NoHost:
        return None
    with sock:
        return [TaskStatus.from_json(task) for task in request(sock, {"op": "tasks"})["tasks"]]


def probe(op: str, server: str, *, start: bool = True) -> dict[str, Any] | None:
    """``test``, ``discover`` or ``logs`` of ``server`` on the host's pool: the host's answer.

    None when no host runs and ``start`` is false; ``attach.NoHost`` when none could be started;
    errors of ``core.errors`` as the in-process command (``ServerAuthRequired``: sign in in place).
    """
    try:
        sock, _reply = attach.connect("command", start=start)
    except attach.NoHost:
        if start:
            raise
        return None
    with sock:
        return request(sock, {"op": op, "server": server})


def follow_logs(server: str) -> Iterator[dict[str, Any]] | None:
    """``logs --follow`` on the host: its first answer (the log so far, or the error of the server's start),
    then one ``{"op": "logLine"}`` per new line; None when no host runs (nothing is started).

    The connection stays open while the caller iterates; the iteration ends when the host goes away.
    """
    try:
        sock, _reply = attach.connect("command", start=False)
    except attach.NoHost:
        return None
    return _followed(sock, server)


def _followed(sock: socket.socket, server: str) -> Iterator[dict[str, Any]]:
    with sock:
        yield request(sock, {"op": "logs", "server": server, "follow": True})
        while (payload := wire.read_frame(sock)) is not None:
            yield wire.decode(payload)


def control(op: str) -> dict[str, Any] | None:
    """``status``, ``stop`` or ``stay`` of a running host; None when none runs (nothing is started)."""
    try:
        sock, _reply = attach.connect("command", start=False)
    except attach.NoHost:
        return None
    with sock:
        return request(sock, {"op": op})
