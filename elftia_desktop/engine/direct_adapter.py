"""Servers held directly by an agent session: ``DirectMcpToolAdapter`` and ``load_direct_mcp_tools``.

Unlike the pool (``McpService``), a session starts its own copy of each server (the original's
built-in servers per session). It does so with the pool's own machinery: a stdio
:class:`~elftia_desktop.connections.connection.ServerConnection` (one owner task, the login-shell
PATH, our process-group runner, the pool's failure messages), so there is one connection class in
the app. A :class:`DirectServer` is that connection plus the tools it listed; every server is in
the app's one :class:`ProcessTracker` from spawn to exit, so no server outlives the app.

Tool names are ``serverName__toolName`` (:func:`elftia_desktop.core.tool_names.prefixed_names`,
the gateway's rule): valid for every provider, a hash suffix where cut or colliding.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types

from elftia_desktop.builtin_servers.launcher import BUILTIN_SERVERS, builtin_command, builtin_env
from elftia_desktop.connections.callbacks import ClientCallbacks
from elftia_desktop.connections.connection import ConnectionHooks, ServerConnection
from elftia_desktop.connections.listing import list_tools
from elftia_desktop.connections.logs import ServerLog
from elftia_desktop.connections.process_tracker import ProcessTracker
from elftia_desktop.connections.stdio_process import StdioProcess
from elftia_desktop.core.errors import ServerConnectionError
from elftia_desktop.core.models import McpServerConfig, McpServerRecord, McpServerTransport
from elftia_desktop.core.paths import data_dir
from elftia_desktop.core.tool_names import prefixed_names
from elftia_desktop.engine.content import describe_exception, tool_result_text

log = logging.getLogger(__name__)

CONNECT_TIMEOUT = 30.0
"""Seconds for starting a server, the initialize handshake and listing its tools."""
CALL_TIMEOUT = 120.0
"""Seconds one tool call may take."""


@dataclass(frozen=True)
class DirectServerSpec:
    """A stdio server to start directly (the original ``ResolvedMcpServer``): env values already resolved."""

    name: str
    command: str
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    is_builtin: bool = False
    """One of this app's built-in servers (started with the app's own interpreter or executable)."""

    @classmethod
    def builtin(cls, name: str) -> DirectServerSpec:
        """The spec of the built-in server ``name`` (see :mod:`elftia_desktop.builtin_servers.launcher`)."""
        command, args = builtin_command(name)
        return cls(name=name, command=command, args=args, env=builtin_env(), is_builtin=True)

    def record(self) -> McpServerRecord:
        """The server as the connections layer knows it: a trusted stdio record (the session chose it)."""
        return McpServerRecord(
            id=f"direct:{self.name}",
            name=self.name,
            type=McpServerTransport.STDIO,
            config=McpServerConfig(command=self.command, args=self.args, cwd=self.cwd),
            is_trusted=True,
            install_source="builtin" if self.is_builtin else "manual",
        )


def builtin_specs(names: Sequence[str] | None = None) -> list[DirectServerSpec]:
    """Specs of the built-in servers ``names`` (all of them when None)."""
    return [DirectServerSpec.builtin(name) for name in (names if names is not None else list(BUILTIN_SERVERS))]


@dataclass(eq=False)
class DirectServer:
    """A server held by one session: the pool's :class:`ServerConnection` to it and the tools it listed."""

    connection: ServerConnection
    tools: list[types.Tool] = field(default_factory=list)

    @property
    def server_name(self) -> str:
        """The server's name (the prefix of its tools' names)."""
        return self.connection.record.name

    @property
    def pid(self) -> int | None:
        """The server's pid, which is also its process group id."""
        process = self.connection.process
        return process.pid if process is not None else None

    @property
    def connected(self) -> bool:
        """Whether the session is up and the process runs."""
        return self.connection.alive

    async def call_tool(
        self,
        tool_name: str,
        arguments: dict[str, Any],
        timeout: float = CALL_TIMEOUT,  # noqa: ASYNC109 - the adapter's limit, also in its error text
    ) -> types.CallToolResult:
        """Call a tool of this server; ``TimeoutError`` after ``timeout`` s, :class:`ServerConnectionError` if down."""
        session = self.connection.session
        if session is None or not self.connection.alive:
            raise ServerConnectionError(
                "the server is not connected", self.connection.record.id, server_name=self.server_name
            )
        with anyio.fail_after(timeout):
            return await session.call_tool(tool_name, arguments)

    async def aclose(self) -> None:
        """Close the session and the transport (the connection's bounded close)."""
        await self.connection.close()


def _hooks(server_id: str, tracker: ProcessTracker) -> ConnectionHooks:
    """Record the process in ``tracker`` from spawn to exit; a lost server is logged."""

    def on_spawn(process: StdioProcess) -> None:
        """Record the started process."""
        tracker.add(server_id, process.pid, process.argv)

    def on_exit(process: StdioProcess) -> None:
        """Forget the process that ended."""
        tracker.remove(process.pid)

    def on_lost(connection: ServerConnection, error: ServerConnectionError) -> None:
        """Log why the server went away."""
        log.warning("direct MCP server %r ended: %s", connection.record.name, error.reason)

    return ConnectionHooks(on_tools_changed=lambda: None, on_lost=on_lost, on_spawn=on_spawn, on_exit=on_exit)


async def open_direct_server(
    spec: DirectServerSpec, *, tracker: ProcessTracker | None = None, connect_timeout: float = CONNECT_TIMEOUT
) -> DirectServer:
    """Start ``spec``'s server and list its tools; the pool's ``ServerStartFailed``/``ServerTimeout`` when it cannot.

    The server is tracked (``tracker``, else the app's) until closed with ``tracker.close_connection``.
    """
    tracker = tracker or default_tracker()
    record = spec.record()
    connection = ServerConnection(
        record, spec.env, {}, ClientCallbacks(), ServerLog(), _hooks(record.id, tracker), person_time=None
    )
    server = DirectServer(connection)
    tracker.track(server)
    try:
        await connection.open(connect_timeout)
        session = connection.session
        if session is None:
            raise ServerConnectionError("the server ended right after it started", record.id, server_name=spec.name)
        with anyio.fail_after(connect_timeout):
            server.tools = await list_tools(session)
    except BaseException:
        await asyncio.shield(tracker.close_connection(server))
        raise
    return server


class DirectMcpToolAdapter:
    """An ``ITool`` for one tool of a directly held server; its name is ``serverName__toolName``."""

    def __init__(self, server: DirectServer, tool: types.Tool, name: str, *, timeout: float = CALL_TIMEOUT) -> None:
        """Wrap ``tool`` of ``server`` under the provider-safe ``name``."""
        self.server = server
        self.tool = tool
        self.timeout = timeout
        self._name = name

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

    async def needs_approval(self, params: dict[str, Any]) -> bool:
        """False: the session chose this server and its tools itself (no config record holds switches for it)."""
        return False

    async def execute(self, params: dict[str, Any]) -> str:
        """Call the tool; failures come back as an ``Error: ...`` text."""
        try:
            result = await self.server.call_tool(self.tool.name, params, self.timeout)
        except TimeoutError:
            return f"Error: tool {self.name} did not answer within {self.timeout:g} s"
        except Exception as exc:
            return f"Error: tool {self.name} could not be called: {describe_exception(exc)}"
        content = [block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in result.content]
        return tool_result_text(self.name, bool(result.is_error), content)


def default_tracker() -> ProcessTracker:
    """The app's tracker (its runtime folder), which the pool uses too."""
    return ProcessTracker.for_dir(data_dir() / "runtime")


async def _open_or_none(spec: DirectServerSpec, tracker: ProcessTracker) -> DirectServer | None:
    try:
        return await open_direct_server(spec, tracker=tracker)
    except Exception as exc:
        log.warning("server %r left out: %s", spec.name, describe_exception(exc))
        return None


def direct_adapters(servers: Sequence[DirectServer]) -> list[DirectMcpToolAdapter]:
    """An adapter for every tool of ``servers``, named ``serverName__toolName`` (unique, provider-safe)."""
    items = [(server, tool) for server in servers for tool in server.tools]
    names = prefixed_names([(s.connection.record.id, s.server_name, t.name) for s, t in items])
    return [DirectMcpToolAdapter(server, tool, name) for name, (server, tool) in zip(names, items, strict=True)]


async def load_direct_mcp_tools(
    servers: Sequence[DirectServerSpec], *, tracker: ProcessTracker | None = None
) -> tuple[list[DirectMcpToolAdapter], list[DirectServer]]:
    """Start every server, wrap its tools (the original's ``loadDirectMcpTools``).

    A server that fails is logged and left out, the others load. Returns the tools and the
    servers; close them with ``ProcessTracker.close_connection`` (or ``close_all``) when the
    session ends.
    """
    tracker = tracker or default_tracker()
    started = await asyncio.gather(*(_open_or_none(spec, tracker) for spec in servers))
    held = [server for server in started if server is not None]
    return direct_adapters(held), held
