"""Built-in servers held directly by an agent session: ``DirectMcpToolAdapter`` and ``load_direct_mcp_tools``.

Unlike the pool (``McpService``), each session starts its own server processes (through the
same ``open_stdio`` as the pool: own process group, the SDK's framing) and holds its own
``ClientSession``. One owner task per connection enters the transport and the session,
initializes, lists the tools, then waits for the stop event and exits both in the same task
(anyio requires it). Tool calls from other tasks go through the session. Every server is in
the app's one :class:`ProcessTracker` from spawn to exit, so no server outlives the app.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import get_default_environment

from elftia_desktop.builtin_servers.launcher import builtin_command, builtin_env
from elftia_desktop.connections.process_tracker import ProcessTracker
from elftia_desktop.connections.stdio_process import StdioProcess, open_stdio
from elftia_desktop.core.errors import ServerConnectionError, ServerStartFailed, ServerTimeout
from elftia_desktop.core.paths import data_dir
from elftia_desktop.engine.content import describe_exception, tool_result_text

log = logging.getLogger(__name__)

CONNECT_TIMEOUT = 30.0
"""Seconds for starting a server, the initialize handshake and listing its tools."""
CALL_TIMEOUT = 120.0
"""Seconds one tool call may take."""
MAX_NAME_LENGTH = 64
_INVALID_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True)
class DirectServerSpec:
    """A stdio server to start directly (the original ``ResolvedMcpServer``): env values already resolved."""

    name: str
    command: str
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None

    @classmethod
    def builtin(cls, name: str) -> DirectServerSpec:
        """The spec of the built-in server ``name`` (see :mod:`elftia_desktop.builtin_servers.launcher`)."""
        command, args = builtin_command(name)
        return cls(name=name, command=command, args=args, env=builtin_env())


def direct_tool_name(server_name: str, tool_name: str) -> str:
    """``serverName__toolName`` as a name every provider accepts (``[A-Za-z0-9_-]``, <= 64, not a digit first)."""
    name = _INVALID_NAME_CHARS.sub("_", f"{server_name}__{tool_name}")
    if name[0].isdigit() or name[0] == "-":
        name = "_" + name
    if len(name) > MAX_NAME_LENGTH:
        digest = hashlib.sha256(f"{server_name}\0{tool_name}".encode()).hexdigest()[:8]
        name = f"{name[: MAX_NAME_LENGTH - 9]}_{digest}"
    return name


class DirectMcpConnection:
    """One started server and its session, owned by a single task."""

    def __init__(
        self, spec: DirectServerSpec, *, connect_timeout: float = CONNECT_TIMEOUT, tracker: ProcessTracker | None = None
    ) -> None:
        """A connection to ``spec``'s server, recorded in ``tracker`` (the app's default one) while it runs."""
        self.spec = spec
        self.connect_timeout = connect_timeout
        self.tracker = tracker or default_tracker()
        self.tools: list[types.Tool] = []
        self._pid: int | None = None
        self._session: ClientSession | None = None
        self._error: BaseException | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stderr: deque[str] = deque(maxlen=50)

    @property
    def server_name(self) -> str:
        """The server's name (the prefix of its tools' names)."""
        return self.spec.name

    @property
    def pid(self) -> int | None:
        """The server's pid, which is also its process group id."""
        return self._pid

    @property
    def connected(self) -> bool:
        """Whether the session is up."""
        return self._session is not None

    async def start(self) -> None:
        """Start the server and wait until its tools are listed; :class:`ServerStartFailed` when it cannot."""
        if self._task is not None:
            raise RuntimeError(f"connection to {self.server_name!r} was started already")
        self._task = asyncio.create_task(self._own(), name=f"direct-mcp:{self.server_name}")
        await self._ready.wait()
        if self._session is None:
            raise self._start_error()

    async def _own(self) -> None:
        argv = [self.spec.command, *self.spec.args]
        env = get_default_environment() | self.spec.env
        process: StdioProcess | None = None

        def on_spawn(info: StdioProcess) -> None:
            nonlocal process
            process, self._pid = info, info.pid
            self.tracker.add(f"direct:{self.server_name}", info.pid, argv)

        try:
            async with (
                open_stdio(argv, env, self.spec.cwd, self._stderr.append, on_spawn) as (read, write, started),
                ClientSession(read, write) as session,
            ):
                with anyio.fail_after(self.connect_timeout):
                    await session.initialize()
                    self.tools = await _list_all_tools(session)
                self._session = session
                self._ready.set()
                await self._serve(started)
        except Exception as exc:
            self._error = exc
            if self._session is not None:
                log.warning("direct MCP server %r ended: %s", self.server_name, describe_exception(exc))
        finally:
            self._session = None
            self._ready.set()
            if process is not None:
                self.tracker.remove(process.pid)

    async def _serve(self, process: StdioProcess) -> None:
        """Wait for ``aclose`` or the death of the server."""
        async with anyio.create_task_group() as tg:

            async def watch_exit() -> None:
                await process.exited.wait()
                tg.cancel_scope.cancel()

            tg.start_soon(watch_exit)
            await self._stop.wait()
            tg.cancel_scope.cancel()

    def _start_error(self) -> ServerConnectionError:
        exc = self._error
        reason = describe_exception(exc) if exc is not None else "it stopped before it was ready"
        if isinstance(exc, TimeoutError):
            message = f"server {self.server_name!r} did not answer within {self.connect_timeout:.0f} s"
            return ServerTimeout(f"{message}{self._stderr_tail()}", server_id=self.server_name)
        argv = " ".join([self.spec.command, *self.spec.args])
        return ServerStartFailed(
            f"server {self.server_name!r} ({argv}) did not start: {reason}{self._stderr_tail()}",
            server_id=self.server_name,
        )

    def _stderr_tail(self, lines: int = 10) -> str:
        tail = [line.rstrip() for line in self._stderr if line.strip()][-lines:]
        return ("; its last output: " + " | ".join(tail)) if tail else ""

    async def call_tool(
        self,
        tool_name: str,
        arguments: dict[str, Any],
        timeout: float = CALL_TIMEOUT,  # noqa: ASYNC109
    ) -> types.CallToolResult:
        """Call a tool of this server; ``TimeoutError`` after ``timeout`` s, :class:`ServerConnectionError` if down."""
        session = self._session
        if session is None:
            raise ServerConnectionError(f"server {self.server_name!r} is not connected", server_id=self.server_name)
        with anyio.fail_after(timeout):
            result = await session.call_tool(tool_name, arguments)
        if not isinstance(result, types.CallToolResult):
            raise ServerConnectionError(f"server {self.server_name!r} answered {tool_name} with an unexpected result")
        return result

    async def aclose(self) -> None:
        """Ask the owner task to close the session and the transport, and wait for it."""
        self._stop.set()
        if self._task is not None:
            await asyncio.shield(self._task)


async def _list_all_tools(session: ClientSession) -> list[types.Tool]:
    tools: list[types.Tool] = []
    cursor: str | None = None
    while True:
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            return tools


class DirectMcpToolAdapter:
    """An ``ITool`` for one tool of a directly held server; its name is ``serverName__toolName``."""

    def __init__(self, connection: DirectMcpConnection, tool: types.Tool, *, name: str | None = None) -> None:
        self.connection = connection
        self.tool = tool
        self._name = name or direct_tool_name(connection.server_name, tool.name)

    @property
    def name(self) -> str:
        """``serverName__toolName``."""
        return self._name

    @property
    def description(self) -> str:
        """The server's description of the tool."""
        return self.tool.description or ""

    @property
    def parameters(self) -> dict[str, Any]:
        """The tool's input schema."""
        return dict(self.tool.input_schema)

    async def execute(self, params: dict[str, Any]) -> str:
        """Call the tool; failures come back as an ``Error: ...`` text."""
        try:
            result = await self.connection.call_tool(self.tool.name, params)
        except TimeoutError:
            return f"Error: tool {self.name} did not answer within {CALL_TIMEOUT:.0f} s"
        except Exception as exc:
            return f"Error: tool {self.name} could not be called: {describe_exception(exc)}"
        content = [block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in result.content]
        return tool_result_text(self.name, bool(result.is_error), content)


def default_tracker() -> ProcessTracker:
    """The app's tracker (its runtime folder), which the pool uses too."""
    return ProcessTracker.for_dir(data_dir() / "runtime")


async def _connect(spec: DirectServerSpec, tracker: ProcessTracker) -> DirectMcpConnection | None:
    connection = DirectMcpConnection(spec, tracker=tracker)
    tracker.track(connection)
    try:
        await connection.start()
    except Exception as exc:
        log.warning("built-in server %r left out: %s", spec.name, describe_exception(exc))
        await tracker.close_connection(connection)
        return None
    return connection


async def load_direct_mcp_tools(
    servers: Sequence[DirectServerSpec], *, tracker: ProcessTracker | None = None
) -> tuple[list[DirectMcpToolAdapter], list[DirectMcpConnection]]:
    """Start every server, wrap its tools; a server that fails is logged and left out, the others load.

    Returns the tools and the connections; close them with ``ProcessTracker.close_connection``
    (or ``close_all``) when the session ends.
    """
    tracker = tracker or default_tracker()
    started = await asyncio.gather(*(_connect(spec, tracker) for spec in servers))
    connections = [c for c in started if c is not None]
    tools: list[DirectMcpToolAdapter] = []
    taken: set[str] = set()
    for connection in connections:
        for tool in connection.tools:
            name = direct_tool_name(connection.server_name, tool.name)
            if name in taken:
                digest = hashlib.sha256(f"{connection.server_name}\0{tool.name}".encode()).hexdigest()[:8]
                name = f"{name[: MAX_NAME_LENGTH - 9]}_{digest}"
            taken.add(name)
            tools.append(DirectMcpToolAdapter(connection, tool, name=name))
    return tools, connections
