"""The stdio transport: runs a server in its own process group and talks JSON-RPC over its pipes.

It follows the SDK's ``mcp.client.stdio.stdio_client`` (same framing, same shutdown order:
close stdin, SIGTERM the group, SIGKILL it, but without the SDK's fixed 2 s grace: each step
lasts while the server is at work, see ``stop_process``) and adds what the pool needs and the SDK
does not expose: the process id (for the runtime file), the exit code (for "exited with
code N"), stderr read line by line into the server log (UTF-8 with replacement), an
event that fires the moment the process is gone, and what a raw relay beside the SDK session
needs (``connections/relay.py``): a tap that is offered each output line before the session,
a line writer to stdin, and the era's request stamp of the session's last request.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from anyio.streams.text import TextReceiveStream
from mcp.shared.message import SessionMessage
from mcp_types import CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, LOG_LEVEL_META_KEY, PROTOCOL_VERSION_META_KEY

from elftia_desktop.connections import proc_identity
from elftia_desktop.connections.relay_pipes import OutputLines, StdoutTap, line_writer, open_stdin, open_stdout

log = logging.getLogger(__name__)

STDIN_CLOSE_GRACE = 2.0
"""Most seconds a server still at work gets to exit after its stdin closes."""
TERM_GRACE = 2.0
"""Most seconds a server still at work gets to exit after SIGTERM, before SIGKILL."""
QUIET = 0.15
"""Seconds a server may sit idle (no CPU, nothing running) before the next step: it is not exiting."""
BLIND_GRACE = 0.5
"""Seconds per step where a server's activity cannot be seen (no /proc)."""
KILL_REAP = 2.0
"""Seconds for the loop to notice a SIGKILL; only an unkillable process runs this out."""
_POLL = 0.01
_LOOK_EVERY = 4
"""Look at the server's activity every this many polls (reading /proc costs more than the exit check)."""

ReadStream = MemoryObjectReceiveStream[SessionMessage | Exception]
WriteStream = MemoryObjectSendStream[SessionMessage]

STAMP_KEYS = (PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY)
"""The per-request ``_meta`` keys a 2026-07-28 session stamps on every request (never ``progressToken``)."""
_NEGOTIATION = frozenset({"initialize", "server/discover"})


@dataclass
class StdioProcess:
    """The running server process, as the pool sees it."""

    pid: int
    argv: list[str]
    exited: anyio.Event = field(default_factory=anyio.Event)
    returncode: int | None = None
    tap: StdoutTap | None = None
    """Offered each output line first, when set."""
    stamp: dict[str, Any] | None = None
    """The ``STAMP_KEYS`` of the last request the session wrote after negotiating (empty for a handshake-era
    session); None until it wrote one."""
    send_line: Callable[[bytes], bool] | None = None
    """Writes one whole line to the server's stdin beside the session's messages (never interleaved with
    one); False when stdin is closed."""


async def _feed_session(lines: OutputLines, sink: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
    """The output lines the tap did not take, parsed, to the session."""
    async with sink:
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            while (line := await lines.next_line()) is not None:
                await sink.send(_parsed(line))


def _parsed(line: str) -> SessionMessage | Exception:
    """One output line as the session's message (or the parse error, which the session reports)."""
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        return exc


def _note_stamp(info: StdioProcess, message: types.JSONRPCMessage) -> None:
    """Keep the era's stamp of a request the session writes (not the negotiation's own)."""
    if isinstance(message, types.JSONRPCRequest) and message.method not in _NEGOTIATION:
        meta = (message.params or {}).get("_meta")
        known = meta if isinstance(meta, dict) else {}
        info.stamp = {key: known[key] for key in STAMP_KEYS if key in known}


async def _write_stdin(
    stdin: asyncio.StreamWriter, source: MemoryObjectReceiveStream[SessionMessage], info: StdioProcess
) -> None:
    with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
        async with source:
            async for message in source:
                _note_stamp(info, message.message)
                data = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                stdin.write(data.encode("utf-8"))
                await stdin.drain()


async def _read_stderr(process: anyio.abc.Process, on_line: Callable[[str], None]) -> None:
    assert process.stderr is not None
    buffer = ""
    with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
        async for chunk in TextReceiveStream(process.stderr, encoding="utf-8", errors="replace"):
            lines = (buffer + chunk).split("\n")
            buffer = lines.pop()
            for line in lines:
                on_line(line)
    if buffer:
        on_line(buffer)


async def _watch_exit(process: anyio.abc.Process, info: StdioProcess) -> None:
    _mark_exited(info, await process.wait())


def _mark_exited(info: StdioProcess, returncode: int) -> None:
    if not info.exited.is_set():
        info.returncode = returncode
        info.exited.set()


def _exited(process: anyio.abc.Process, info: StdioProcess) -> bool:
    """Whether the server is gone, by its return code.

    Not ``wait()``: that also waits for the pipes, which a child left in the group can hold open.
    """
    if process.returncode is not None:
        _mark_exited(info, process.returncode)
    return info.exited.is_set()


async def _settle(process: anyio.abc.Process, info: StdioProcess, limit: float) -> bool:
    """Wait for the server to exit while it is at work, at most ``limit`` s; whether it exited.

    At work means its process tree used CPU or had a process running since the last look.
    Once it has been idle for ``QUIET`` s it is waiting for something else (a timer, a
    signal), not shutting down, and the wait ends. Without /proc: a fixed ``BLIND_GRACE``.
    """
    now = anyio.current_time()
    last = proc_identity.tree_activity(info.pid)
    deadline = now + (limit if last is not None else min(limit, BLIND_GRACE))
    quiet_since, polls = now, 0
    while not _exited(process, info):
        now = anyio.current_time()
        if now >= deadline or (last is not None and now - quiet_since >= QUIET):
            return False
        await anyio.sleep(_POLL)
        polls += 1
        current = proc_identity.tree_activity(info.pid) if last is not None and polls % _LOOK_EVERY == 0 else None
        if current is not None and last is not None:
            if current[1] or current[0] != last[0]:
                quiet_since = anyio.current_time()
            last = current
    return True


async def stop_process(
    process: anyio.abc.Process, info: StdioProcess, stdin: asyncio.StreamWriter | None = None
) -> None:
    """The spec's order: close stdin (``stdin``, else the process's own), then SIGTERM the group, then SIGKILL it.

    No fixed wait: each step ends the moment the server exits, or once it sits idle
    (see :func:`_settle`); a server that flushes its state on EOF or on SIGTERM keeps the
    time it is busy doing so (up to ``STDIN_CLOSE_GRACE`` / ``TERM_GRACE``).
    """
    if stdin is not None:
        stdin.close()
    elif process.stdin is not None:
        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdin.aclose()
    if not await _settle(process, info, STDIN_CLOSE_GRACE):
        proc_identity.signal_group(info.pid, signal.SIGTERM)
        if not await _settle(process, info, TERM_GRACE):
            proc_identity.signal_group(info.pid, signal.SIGKILL)
            with anyio.move_on_after(KILL_REAP):
                while not _exited(process, info):  # noqa: ASYNC110 - the return code has no event to wait on
                    await anyio.sleep(_POLL)
            if not info.exited.is_set():
                log.warning("server process %d survived SIGKILL; abandoning it", info.pid)
    # Children the server left behind in its group.
    proc_identity.signal_group(info.pid, signal.SIGKILL)


def working_folder(cwd: str | None) -> str:
    """Where a stdio server starts: its own folder (``~`` expanded), else the user's home folder."""
    return os.path.expanduser(cwd) if cwd else os.path.expanduser("~")


@asynccontextmanager
async def open_stdio(
    argv: list[str],
    env: dict[str, str],
    cwd: str | None,
    on_stderr: Callable[[str], None],
    on_spawn: Callable[[StdioProcess], None] | None = None,
) -> AsyncIterator[tuple[ReadStream, WriteStream, StdioProcess]]:
    """Start ``argv`` in a new session (in :func:`working_folder`) and yield (read, write, process).

    Its stdin and stdout are this module's own pipes (``relay_pipes.py``), stderr the runner's.
    """
    stdin_fd, stdout_fd, process = await _spawn(argv, env, cwd)
    info = StdioProcess(pid=process.pid, argv=list(argv))
    stdin = await open_stdin(stdin_fd)
    lines = await open_stdout(stdout_fd, lambda: info.tap)
    info.send_line = line_writer(stdin)
    if on_spawn is not None:
        on_spawn(info)
    read_sink, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_source = anyio.create_memory_object_stream[SessionMessage](0)
    async with anyio.create_task_group() as tg:
        tg.start_soon(_feed_session, lines, read_sink)
        tg.start_soon(_write_stdin, stdin, write_source, info)
        tg.start_soon(_read_stderr, process, on_stderr)
        tg.start_soon(_watch_exit, process, info)
        try:
            yield read_stream, write_stream, info
        finally:
            with anyio.CancelScope(shield=True):
                write_stream.close()
                read_stream.close()
                await stop_process(process, info, stdin)
                lines.close()
                if process.stderr is not None:
                    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                        await process.stderr.aclose()
            tg.cancel_scope.cancel()


async def _spawn(argv: list[str], env: dict[str, str], cwd: str | None) -> tuple[int, int, anyio.abc.Process]:
    """Start the process on two new pipes; ``(our end of its stdin, our end of its stdout, process)``."""
    stdin_read, stdin_write = os.pipe()
    stdout_read, stdout_write = os.pipe()
    try:
        process = await anyio.open_process(
            argv,
            stdin=stdin_read,
            stdout=stdout_write,
            stderr=subprocess.PIPE,
            env=env,
            cwd=working_folder(cwd),
            start_new_session=True,
        )
    except BaseException:
        os.close(stdin_write)
        os.close(stdout_read)
        raise
    finally:
        os.close(stdin_read)
        os.close(stdout_write)
    return stdin_write, stdout_read, process
