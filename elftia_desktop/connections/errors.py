"""Translate SDK, anyio, httpx2 and OS exceptions into the app's errors (``core/errors.py``).

Nothing raised by the mcp SDK, anyio or httpx2 leaves ``connections/`` untranslated::

    FileNotFoundError / PermissionError (spawn)  -> ServerStartFailed  command not found (+ PATH searched)
    the process exited                           -> ServerStartFailed  exited with code N (+ last stderr lines)
    httpx2.ConnectError                          -> ServerStartFailed  connection refused / TLS error
    HTTP status >= 400 / HTTPStatusError         -> ServerStartFailed  HTTP status N
    httpx2.TimeoutException, MCPError timeout    -> ServerTimeout
    anything else                                -> ServerStartFailed during start, else ServerConnectionError
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field

import anyio
import httpx2
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

from elftia_desktop.core.errors import (
    ElftiaError,
    ServerConnectionError,
    ServerStartFailed,
    ServerTimeout,
)

_SESSION_GONE = ("session terminated", "session not found", "session expired")
"""How servers word an expired HTTP session (HTTP 404)."""
STDERR_TAIL = 8
"""Stderr lines quoted in a start failure."""


@dataclass
class FailureContext:
    """What the connection knows when something fails: used to say why."""

    server_name: str
    server_id: str
    target: str
    """The command line or URL."""
    phase: str = "start"
    """``start`` (spawn + initialize), ``list`` or ``call``."""
    exit_code: int | None = None
    stderr_tail: list[str] = field(default_factory=list)
    """The last lines of a stdio server's stderr (empty for HTTP: such a server's stderr is not ours)."""
    http_status: int | None = None
    timeout: float | None = None
    protocol: str | None = None
    """The agreed protocol (``2026-07-28``, ``handshake 2025-11-25``), or what a start was trying."""


def leaf_exception(exc: BaseException) -> BaseException:
    """The most telling exception inside (nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        inner = [e for e in exc.exceptions if not isinstance(e, anyio.get_cancelled_exc_class())]
        exc = (inner or list(exc.exceptions))[0]
    return exc


def is_connection_lost(exc: BaseException) -> bool:
    """True when the error means the connection is gone (the next use must reconnect)."""
    exc = leaf_exception(exc)
    if isinstance(exc, MCPError):
        text = exc.message.lower()
        return exc.code == CONNECTION_CLOSED or any(marker in text for marker in _SESSION_GONE)
    return isinstance(
        exc,
        anyio.ClosedResourceError | anyio.BrokenResourceError | anyio.EndOfStream | httpx2.TransportError,
    )


def is_timeout(exc: BaseException) -> bool:
    """True for any kind of timeout."""
    exc = leaf_exception(exc)
    if isinstance(exc, MCPError):
        return exc.code == REQUEST_TIMEOUT
    return isinstance(exc, TimeoutError | httpx2.TimeoutException)


def _with_stderr(text: str, ctx: FailureContext) -> str:
    tail = [line for line in ctx.stderr_tail if line.strip()][-STDERR_TAIL:]
    if tail:
        text += "\nLast stderr lines:\n  " + "\n  ".join(tail)
    return text


def _causes(exc: BaseException) -> list[BaseException]:
    """``exc`` and its causes, with the leaves of exception groups on the way."""
    seen: list[BaseException] = []
    stack = [exc]
    while stack and len(seen) < 50:
        current = stack.pop()
        if current in seen:
            continue
        seen.append(current)
        if isinstance(current, BaseExceptionGroup):
            stack.extend(current.exceptions)
        for linked in (current.__cause__, current.__context__):
            if linked is not None:
                stack.append(linked)
    return seen


def _http_cause(exc: BaseException, ctx: FailureContext) -> str | None:
    if isinstance(exc, httpx2.HTTPStatusError):
        ctx.http_status = exc.response.status_code
    if isinstance(exc, MCPError) and any(marker in exc.message.lower() for marker in _SESSION_GONE):
        return f"the server ended the HTTP session ({exc.message}); the next use reconnects"
    if ctx.http_status is not None and ctx.http_status >= 400:
        hint = " (check the Authorization header or token)" if ctx.http_status in (401, 403) else ""
        return f"{ctx.target} answered with HTTP status {ctx.http_status}{hint}"
    if isinstance(exc, httpx2.ConnectError):
        causes = _causes(exc)
        if any(isinstance(c, ssl.SSLError) or "certificate" in str(c).lower() for c in causes):
            return f"TLS error connecting to {ctx.target}: {exc}"
        if any(isinstance(c, ConnectionRefusedError) or "refused" in str(c).lower() for c in causes):
            return f"connection refused by {ctx.target} (is the server running?)"
        return f"cannot connect to {ctx.target}: {exc or type(exc).__name__}"
    if isinstance(exc, httpx2.TransportError):
        return f"network error talking to {ctx.target}: {exc or type(exc).__name__}"
    return None


def describe(exc: BaseException, ctx: FailureContext) -> str:
    """Why it failed, in words a user understands."""
    exc = leaf_exception(exc)
    if isinstance(exc, ElftiaError):
        return str(exc)
    if ctx.exit_code is not None:
        return _with_stderr(f"the server process exited with code {ctx.exit_code}", ctx)
    http = _http_cause(exc, ctx)
    if http is not None:
        return http
    if isinstance(exc, MCPError):
        if exc.code == CONNECTION_CLOSED and ctx.target.startswith(("http://", "https://")):
            return f"the connection to {ctx.target} was lost (the server stopped answering); the next use reconnects"
        if exc.code == CONNECTION_CLOSED:
            return _with_stderr("the server closed the connection", ctx)
        return f"the server answered with an error: {exc.message} (code {exc.code})"
    if isinstance(exc, OSError):
        return f"{type(exc).__name__}: {exc.strerror or exc}"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def translate(exc: BaseException, ctx: FailureContext) -> ServerConnectionError:
    """The app error for an exception raised while starting or using a server."""
    leaf = leaf_exception(exc)
    if isinstance(leaf, ServerConnectionError):
        return leaf
    if is_timeout(leaf) and ctx.exit_code is None:
        phase = {"start": "while starting and initializing", "list": "listing", "call": "in the tool call"}
        after = f" after {ctx.timeout:g} s" if ctx.timeout else ""
        protocol = f" ({ctx.protocol})" if ctx.protocol else ""
        return ServerTimeout(
            _with_stderr(f"timed out {phase.get(ctx.phase, ctx.phase)}{after}{protocol}", ctx),
            ctx.server_id,
            server_name=ctx.server_name,
        )
    error_class = ServerStartFailed if ctx.phase == "start" else ServerConnectionError
    return error_class(describe(leaf, ctx), ctx.server_id, server_name=ctx.server_name)
