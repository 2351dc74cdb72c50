"""The stdio transport: runs a server in its own kill scope and talks JSON-RPC over its pipes.

It follows the SDK's ``mcp.client.stdio.stdio_client`` (same framing, same portable start through
``platform/processes.py``: a process group on POSIX, a Job Object without a console window on
Windows, ``npx`` resolved to ``npx.cmd`` there; same shutdown order: close stdin, terminate the
tree, kill it, but without the SDK's fixed 2 s grace: each step lasts while the server is at
work, see ``stop_process``) and adds what the pool needs and the SDK does not expose: the process
id (for the runtime file), the exit code (for "exited with code N"), stderr read line by line
into the server log (UTF-8 with replacement), and an event that fires the moment the process is gone.
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field

import anyio
import anyio.abc
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from anyio.streams.text import TextReceiveStream
from mcp.shared.message import SessionMessage

from elftia_desktop.platform import proc_identity, processes

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
EXIT_LOOK = 0.1
"""Seconds between looks at a running server's return code (see ``_watch_exit``)."""
_LOOK_EVERY = 4
"""Look at the server's activity every this many polls (reading /proc costs more than the exit check)."""

ReadStream = MemoryObjectReceiveStream[SessionMessage | Exception]
WriteStream = MemoryObjectSendStream[SessionMessage]


@dataclass
class StdioProcess:
    """The running server process, as the pool sees it."""

    pid: int
    argv: list[str]
    exited: anyio.Event = field(default_factory=anyio.Event)
    returncode: int | None = None


async def _read_stdout(process: anyio.abc.Process, sink: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
    """The server's output lines, parsed, to the session (as the SDK's ``stdio_client`` reads them)."""
    assert process.stdout is not None
    buffer = ""
    async with sink:
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
            async for chunk in TextReceiveStream(process.stdout, encoding="utf-8", errors="replace"):
                lines = (buffer + chunk).split("\n")
                buffer = lines.pop()
                for line in lines:
                    if line.strip():
                        await sink.send(_parsed(line))
    with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
        while True:  # the session is gone: keep the pipe flowing, so a server blocked writing can exit
            await process.stdout.receive()


def _parsed(line: str) -> SessionMessage | Exception:
    """One output line as the session's message (or the parse error, which the session reports)."""
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        return exc


async def _write_stdin(process: anyio.abc.Process, source: MemoryObjectReceiveStream[SessionMessage]) -> None:
    """The session's messages to the server's stdin, one line each."""
    assert process.stdin is not None
    with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
        async with source:
            async for message in source:
                data = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                await process.stdin.send(data.encode("utf-8"))


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
    """Set ``info.exited`` the moment the server is gone.

    ``wait()`` ends at once in the usual case, but (asyncio on 3.11) only when the pipes close too,
    which a child the server left running may hold open: the return code is looked at as well.
    """
    async with anyio.create_task_group() as group:

        async def waited() -> None:
            """The usual way: the process and its pipes are gone."""
            _mark_exited(info, await process.wait())
            group.cancel_scope.cancel()

        group.start_soon(waited)
        while not _exited(process, info):  # noqa: ASYNC110 - the return code has no event of its own
            await anyio.sleep(EXIT_LOOK)
        group.cancel_scope.cancel()


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


async def stop_process(process: anyio.abc.Process, info: StdioProcess) -> None:
    """The spec's order: close stdin, then terminate the server's tree (SIGTERM to its group), then kill it.

    No fixed wait: each step ends the moment the server exits, or once it sits idle
    (see :func:`_settle`); a server that flushes its state on EOF or on SIGTERM keeps the
    time it is busy doing so (up to ``STDIN_CLOSE_GRACE`` / ``TERM_GRACE``). On Windows the
    terminate step is already the Job Object's hard kill.
    """
    if process.stdin is not None:
        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdin.aclose()
    if not await _settle(process, info, STDIN_CLOSE_GRACE):
        await processes.terminate_tree(process)
        if not await _settle(process, info, TERM_GRACE):
            await processes.kill_tree(process)
            with anyio.move_on_after(KILL_REAP):
                while not _exited(process, info):  # noqa: ASYNC110 - the return code has no event to wait on
                    await anyio.sleep(_POLL)
            if not info.exited.is_set():
                log.warning("server process %d survived SIGKILL; abandoning it", info.pid)
    await processes.kill_tree(process)  # children the server left behind in its group
    processes.release(process)


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
    """Start ``argv`` in its own kill scope (in :func:`working_folder`) and yield (read, write, process)."""
    process = await processes.open_process(argv, env, working_folder(cwd))
    info = StdioProcess(pid=process.pid, argv=list(argv))
    if on_spawn is not None:
        on_spawn(info)
    read_sink, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_source = anyio.create_memory_object_stream[SessionMessage](0)
    async with anyio.create_task_group() as tg:
        tg.start_soon(_read_stdout, process, read_sink)
        tg.start_soon(_write_stdin, process, write_source)
        tg.start_soon(_read_stderr, process, on_stderr)
        tg.start_soon(_watch_exit, process, info)
        try:
            yield read_stream, write_stream, info
        finally:
            with anyio.CancelScope(shield=True):
                write_stream.close()
                read_stream.close()
                await stop_process(process, info)
                for pipe in (process.stdout, process.stderr):
                    if pipe is not None:
                        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                            await pipe.aclose()
            tg.cancel_scope.cancel()
