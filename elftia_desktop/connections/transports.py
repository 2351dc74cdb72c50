"""Opening a server's transport: stdio (our process-group runner), SSE and Streamable HTTP (the SDK's).

``open_transport`` yields a ``Transport``: the stream pair for ``ClientSession`` plus the
stdio process (or None). Secrets arrive already resolved; they are never logged here.
:func:`sse_fallback` is the spec's backwards compatibility for a URL that only speaks SSE.
``set_transport_factory`` is the one seam for tests: a factory that answers a record with its own
transport (an SDK server in the same process, over the SDK's in-memory streams) replaces the real
one for that record; the others open as usual.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcp.client.stdio import get_default_environment

from elftia_desktop.builtin_servers.launcher import BUILTIN_SERVERS, builtin_command
from elftia_desktop.connections.sandbox import sandboxed
from elftia_desktop.connections.stdio_process import StdioProcess, open_stdio
from elftia_desktop.core.errors import ServerStartFailed
from elftia_desktop.core.login_env import login_env, passed_through, search_path
from elftia_desktop.core.models import McpServerRecord, McpServerTransport
from elftia_desktop.core.text_rules import quoted
from elftia_desktop.platform.commands import find_command

if TYPE_CHECKING:  # the HTTP transports are imported when one is opened: a stdio-only CLI run skips them
    import httpx2

BUILTIN_PACKAGE = "elftia_desktop.builtin_servers"
HTTP_READ_TIMEOUT = 300.0
"""Seconds an HTTP response stream may stay silent."""


@dataclass
class Transport:
    """An open transport."""

    read: Any
    write: Any
    process: StdioProcess | None = None


@dataclass
class TransportHooks:
    """Callbacks the connection gives the transport."""

    on_stderr: Callable[[str], None]
    on_spawn: Callable[[StdioProcess], None]
    on_http_status: Callable[[int], None]


TransportFactory = Callable[[McpServerRecord], AbstractAsyncContextManager[Transport] | None]
"""Answers a record with the transport to open instead of the real one, or None for the real one."""

_factory: TransportFactory | None = None


def set_transport_factory(factory: TransportFactory | None) -> TransportFactory | None:
    """Open servers through ``factory`` from now on (None: the real transports); returns the previous one."""
    global _factory
    previous, _factory = _factory, factory
    return previous


async def stdio_argv(record: McpServerRecord) -> tuple[list[str], str, dict[str, str]]:
    """The command line of a stdio server, the PATH used and the variables passed through.

    A built-in server always starts with this app's own interpreter (or frozen executable),
    whatever path was stored when it was added. ``ServerStartFailed`` if the command is missing.
    """
    env = await login_env()
    path = search_path(env)
    builtin = builtin_argv(record)
    if builtin is not None:
        return builtin, path, passed_through(env)
    command = record.config.command or ""
    found = find_command(command, path)
    if found is None:
        raise command_not_found(command, path, record)
    return [found, *record.config.args], path, passed_through(env)


def command_not_found(command: str, path: str, record: McpServerRecord) -> ServerStartFailed:
    """The error of a missing command: the PATH once, folded into ``details`` (a folder a line), not the message."""
    folders = [entry for entry in path.split(os.pathsep) if entry]
    count = f"{len(folders)} folder{'s' if len(folders) != 1 else ''}"
    searched = f"not in any of the {count} on the PATH" if folders else "the PATH is empty"
    return ServerStartFailed(
        f"command not found: {quoted(command)} ({searched})",
        record.id,
        server_name=record.name,
        details="Searched PATH, in order:\n" + "\n".join(folders) if folders else "",
    )


def builtin_argv(record: McpServerRecord) -> list[str] | None:
    """``[interpreter, ...]`` for a built-in server record (``-m elftia_desktop.builtin_servers.X``)."""
    args = record.config.args
    if record.install_source != "builtin" or len(args) != 2 or args[0] != "-m":
        return None
    module = args[1]
    name = module.removeprefix(BUILTIN_PACKAGE + ".")
    if name == module or name not in BUILTIN_SERVERS:
        return None
    command, builtin_args = builtin_command(name)
    return [command, *builtin_args]


def stdio_env(path: str, inherited: dict[str, str], user_env: dict[str, str]) -> dict[str, str]:
    """The SDK's default environment, the login PATH and passed-through variables, then the user's."""
    return get_default_environment() | inherited | {"PATH": path} | user_env


def http_client(
    headers: dict[str, str],
    connect_timeout: float,
    on_status: Callable[[int], None],
    auth: httpx2.Auth | None = None,
) -> httpx2.AsyncClient:
    """An HTTP client carrying the server's headers, our timeouts and its OAuth; reports each response status."""
    import httpx2

    async def record_status(response: httpx2.Response) -> None:
        """Report the response's HTTP status."""
        on_status(response.status_code)

    return httpx2.AsyncClient(
        headers=headers,
        timeout=httpx2.Timeout(connect_timeout, read=HTTP_READ_TIMEOUT),
        event_hooks={"response": [record_status]},
        auth=auth,
    )


SSE_FALLBACK_STATUSES = range(400, 500)
"""A Streamable HTTP POST answered with one of these (not 401/403: a sign-in) may be an SSE-only server."""


def sse_fallback(record: McpServerRecord, status: int | None) -> McpServerRecord | None:
    """The record as an SSE entry when its Streamable HTTP attempt got a 4xx, else None.

    The spec's backwards-compatibility procedure: a client that POSTs the initialize request and
    gets a 4xx tries the old HTTP+SSE transport (a GET on the same URL) next. URL-only entries of
    Cursor-style configs (``{"url": "http://…/sse"}``) are stored as Streamable HTTP.
    """
    if record.type is not McpServerTransport.HTTP or status not in SSE_FALLBACK_STATUSES or status in (401, 403):
        return None
    return record.model_copy(update={"type": McpServerTransport.SSE})


@asynccontextmanager
async def open_transport(
    record: McpServerRecord,
    env: dict[str, str],
    headers: dict[str, str],
    connect_timeout: float,
    hooks: TransportHooks,
    auth: httpx2.Auth | None = None,
) -> AsyncIterator[Transport]:
    """Open the record's transport (``auth``: the OAuth provider); must be entered and exited in the same task."""
    substitute = _factory(record) if _factory is not None else None
    if substitute is not None:
        async with substitute as transport:
            yield transport
        return
    async with AsyncExitStack() as stack:
        if record.type is McpServerTransport.STDIO:
            argv, path, inherited = await stdio_argv(record)
            launch = await stack.enter_async_context(
                sandboxed(record, argv, stdio_env(path, inherited, env), env, hooks.on_stderr)
            )
            read, write, process = await stack.enter_async_context(
                open_stdio(launch.argv, launch.env, record.config.cwd, launch.on_stderr, hooks.on_spawn)
            )
            yield Transport(read, write, process)
            return
        url = record.config.url or ""
        from mcp.client.sse import sse_client
        from mcp.client.streamable_http import streamable_http_client

        if record.type is McpServerTransport.SSE:

            def factory(
                headers: dict[str, str] | None = None,
                timeout: httpx2.Timeout | None = None,
                auth: httpx2.Auth | None = None,
            ) -> httpx2.AsyncClient:
                """An HTTP client with our headers, timeout and auth."""
                client = http_client(headers or {}, connect_timeout, hooks.on_http_status, auth)
                if timeout is not None:
                    client.timeout = timeout
                return client

            streams: tuple[Any, Any] = await stack.enter_async_context(
                sse_client(
                    url,
                    headers=headers,
                    timeout=connect_timeout,
                    sse_read_timeout=HTTP_READ_TIMEOUT,
                    httpx_client_factory=factory,
                    auth=auth,
                )
            )
        else:
            client = await stack.enter_async_context(http_client(headers, connect_timeout, hooks.on_http_status, auth))
            streams = await stack.enter_async_context(streamable_http_client(url, http_client=client))
        yield Transport(streams[0], streams[1])
