"""The stdio transport: runs a server in its own process group and talks JSON-RPC over its pipes.

It follows the SDK's ``mcp.client.stdio.stdio_client`` (same framing, same shutdown order:
close stdin, wait, SIGTERM the group, SIGKILL it) and adds what the pool needs and the SDK
does not expose: the process id (for the runtime file), the exit code (for "exited with
code N"), stderr read line by line into the server log (UTF-8 with replacement), and an
event that fires the moment the process is gone.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field

import anyio
import anyio.abc
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from anyio.streams.text import TextReceiveStream
from mcp.shared.message import SessionMessage

log = logging.getLogger(__name__)

STDIN_CLOSE_GRACE = 2.0
"""Seconds a server gets to exit after its stdin closes."""
TERM_GRACE = 2.0
"""Seconds between SIGTERM and SIGKILL of the group."""
_POLL = 0.02

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
    assert process.stdout is not None
    buffer = ""
    async with sink:
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
            async for chunk in TextReceiveStream(process.stdout, encoding="utf-8", errors="replace"):
                lines = (buffer + chunk).split("\n")
                buffer = lines.pop()
                for line in lines:
                    if not line.strip():
                        continue
                    try:
                        message: SessionMessage | Exception = SessionMessage(
                            types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                        )
                    except ValueError as exc:
                        message = exc
                    await sink.send(message)


async def _write_stdin(process: anyio.abc.Process, source: MemoryObjectReceiveStream[SessionMessage]) -> None:
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
    info.returncode = await process.wait()
    info.exited.set()


async def _wait_exit(info: StdioProcess, limit: float) -> bool:
    with anyio.move_on_after(limit):
        await info.exited.wait()
    return info.exited.is_set()


def kill_group(pgid: int, sig: int) -> bool:
    """Signal a process group; False when it is gone."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


async def stop_process(process: anyio.abc.Process, info: StdioProcess) -> None:
    """Close stdin, wait; then SIGTERM the group, wait; then SIGKILL it. Bounded in time."""
    if process.stdin is not None:
        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdin.aclose()
    if not await _wait_exit(info, STDIN_CLOSE_GRACE):
        kill_group(info.pid, signal.SIGTERM)
        if not await _wait_exit(info, TERM_GRACE):
            kill_group(info.pid, signal.SIGKILL)
            if not await _wait_exit(info, TERM_GRACE):
                log.warning("server process %d survived SIGKILL; abandoning it", info.pid)
    # Children the server left behind in its group.
    kill_group(info.pid, signal.SIGKILL)


@asynccontextmanager
async def open_stdio(
    argv: list[str],
    env: dict[str, str],
    cwd: str | None,
    on_stderr: Callable[[str], None],
    on_spawn: Callable[[StdioProcess], None] | None = None,
) -> AsyncIterator[tuple[ReadStream, WriteStream, StdioProcess]]:
    """Start ``argv`` in a new session and yield (read stream, write stream, process)."""
    process = await anyio.open_process(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=cwd,
        start_new_session=True,
    )
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
                for stream in (process.stdout, process.stderr):
                    if stream is not None:
                        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                            await stream.aclose()
            tg.cancel_scope.cancel()
