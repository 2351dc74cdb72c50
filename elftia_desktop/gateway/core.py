"""The gateway's requests: each one routed through the pool to the server that owns it.

A tool call runs in the request's own task, so a cancellation from the client cancels the call
downstream (the SDK sends ``notifications/cancelled`` on), and the downstream server's progress
goes back to the client on that request's progress token. A server that fails or times out is
reported in the tool result; every other request keeps going (each one is bounded by the
server's timeouts). Error texts pass through :func:`redact` first: no secret value of the
server's env or headers reaches the client. A tool that is not auto-approved runs only once a
person allowed it (:mod:`elftia_desktop.gateway.approval`); a refusal is the tool result.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError

from elftia_desktop.connections.events import ListsChanged, LogMessage, ToolsChanged
from elftia_desktop.connections.service import McpService
from elftia_desktop.core.errors import ElftiaError
from elftia_desktop.core.secrets import looks_secret
from elftia_desktop.engine.approval import Asker, check_approval
from elftia_desktop.gateway.approval import caller_asker
from elftia_desktop.gateway.catalog import Catalog, Listing
from elftia_desktop.gateway.scope import Scope
from elftia_desktop.gateway.upstream import Upstreams
from elftia_desktop.tools.names import ToolRef

log = logging.getLogger(__name__)

Context = ServerRequestContext[Any, Any]
T = TypeVar("T")


def progress_forwarder(ctx: Context) -> ProgressFnT | None:
    """A progress callback that reports on the client's request, or None when it asked for no progress."""
    meta = ctx.meta or {}
    if meta.get("progress_token", meta.get("progressToken")) is None:
        return None
    session = ctx.session

    async def forward(progress: float, total: float | None, message: str | None) -> None:
        """Pass one progress notification on to the client."""
        await session.report_progress(progress, total, message)

    return forward


def redact(text: str, secrets: list[str]) -> str:
    """``text`` with every secret value replaced by ``***``."""
    for value in sorted((s for s in secrets if len(s) >= 4), key=len, reverse=True):
        text = text.replace(value, "***")
    return text


def error_result(text: str) -> types.CallToolResult:
    """A tool result that reports a failure to the model."""
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


class Gateway:
    """One gateway over one pool: listings, calls, and what flows back to the clients."""

    def __init__(
        self,
        service: McpService,
        scope: Callable[[], Scope],
        *,
        call_timeout: float | None = None,
        release_when_idle: bool = False,
    ) -> None:
        """``release_when_idle``: stop the servers whenever the last client disconnects (HTTP)."""
        self.service = service
        self.scope = scope
        self.catalog = Catalog(service, scope)
        self.upstreams = Upstreams(self._release if release_when_idle else None)
        self.call_timeout = call_timeout
        self.window_approval: Asker | None = None
        """Asks in the window (set when the window runs as the pool host) when the calling app cannot be asked."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False
        service.set_elicitation_handler(self.upstreams.elicit)
        service.set_sampling_handler(self.upstreams.sample)
        events = service.events
        self._unsubscribe = [
            events.on(ToolsChanged, lambda e: self._changed(e.server_id, "tools")),
            events.on(ListsChanged, lambda e: self._changed(e.server_id, e.kind)),
            events.on(LogMessage, self._on_log_message),
        ]

    # -- what flows back ----------------------------------------------------------------------

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _server_name(self, server_id: str) -> str:
        record = self.service.cached_record(server_id)
        return record.name if record is not None else server_id

    def _changed(self, server_id: str, kind: str) -> None:
        record = self.service.cached_record(server_id)
        if record is None or not self.scope().servers([record]):
            return  # not a server this gateway serves
        kinds = ("resources", "templates") if kind == "resources" else (kind,)
        self.catalog.drop(*kinds)
        self._spawn(self.upstreams.broadcast(("resources",) if kind == "resources" else (kind,)))

    def _on_log_message(self, event: LogMessage) -> None:
        name = self._server_name(event.server_id)
        logger = f"{name}/{event.logger}" if event.logger else name
        self._spawn(self.upstreams.log_message(event.level, logger, event.data))

    async def _release(self) -> None:
        log.info("the last client disconnected; stopping the servers")
        records = await self.service.current_records()
        for record in records:  # one by one in the background: a client that comes back meanwhile reconnects
            self._spawn(self.service.disconnect(record.id))

    async def config_changed(self) -> None:
        """The config or the agent changed in a way that changes what is served: tell every client."""
        self.catalog.drop()
        await self.upstreams.broadcast(("tools", "prompts", "resources"))

    # -- requests -----------------------------------------------------------------------------

    def _route(self, listing: Listing[Any], name: str, what: str) -> ToolRef:
        ref = listing.routes.get(name)
        if ref is None:
            known = ", ".join(list(listing.routes)[:20]) or "none"
            raise MCPError(types.INVALID_PARAMS, f"Unknown {what} {name!r} (known: {known})")
        return ref

    async def _secrets_of(self, server_id: str) -> list[str]:
        record = self.service.cached_record(server_id)
        if record is None:
            return []
        try:
            env, headers = await asyncio.to_thread(self.service.catalog.vault.resolve, record)
        except ElftiaError:
            return []
        plain = {**record.config.env, **record.config.headers}
        return [v for k, v in {**env, **headers}.items() if v != plain.get(k) or looks_secret(k)]

    async def _failure(self, server_id: str, exc: ElftiaError) -> str:
        """What the client is told: the server's name and the error, without secret values."""
        name = exc.server_name or self._server_name(server_id)
        return f"{name}: {redact(exc.reason, await self._secrets_of(server_id))}"

    async def call_tool(self, ctx: Context, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        """Call the tool behind a gateway name; a failing server is reported in the result."""
        return await self.call_ref(ctx, await self.tool_ref(name), arguments or {})

    async def call_ref(self, ctx: Context, ref: ToolRef, arguments: dict[str, Any]) -> types.CallToolResult:
        """Call ``ref``'s tool for ``ctx``'s client once approved (progress, cancellation, questions pass through)."""
        with self.upstreams.calling(ref.server_id, ctx):
            ask = caller_asker(self.upstreams, ctx, self.window_approval)
            refusal = await check_approval(self.service, ref.server_id, ref.tool_name, arguments, ask)
            if refusal is not None:
                return error_result(refusal.text)
            return await self.call_downstream(ref, arguments, progress_forwarder(ctx))

    async def call_downstream(
        self, ref: ToolRef, arguments: dict[str, Any], progress: ProgressFnT | None
    ) -> types.CallToolResult:
        """Call ``ref``'s tool on its server; a failing server is reported in the result (secrets redacted)."""
        try:
            return await self.service.call_tool_raw(
                ref.server_id, ref.tool_name, arguments, timeout=self.call_timeout, progress_callback=progress
            )
        except ElftiaError as exc:
            return await self.failure_result(ref.server_id, exc)

    async def failure_result(self, server_id: str, exc: ElftiaError) -> types.CallToolResult:
        """How ``call_downstream`` reports a failing server: in the result, secrets redacted."""
        return error_result(await self._failure(server_id, exc))

    async def tool_ref(self, name: str) -> ToolRef:
        """The server and tool behind a gateway tool name; ``MCPError`` (invalid params) when none is."""
        return self._route(await self.catalog.tools(), name, "tool")

    async def _ask(self, server_id: str, work: Awaitable[T]) -> T:
        try:
            return await work
        except ElftiaError as exc:
            raise MCPError(types.INTERNAL_ERROR, await self._failure(server_id, exc)) from exc

    async def get_prompt(self, name: str, arguments: dict[str, str] | None) -> types.GetPromptResult:
        """The prompt behind a gateway name."""
        ref = self._route(await self.catalog.prompts(), name, "prompt")
        return await self._ask(ref.server_id, self.service.get_prompt(ref.server_id, ref.tool_name, arguments))

    async def _resource_server(self, uri: str) -> str:
        ref = (await self.catalog.resources()).routes.get(uri)
        if ref is not None:
            return ref.server_id
        templates = await self.catalog.templates()
        for template, template_ref in templates.routes.items():
            if template_matches(template, uri):
                return template_ref.server_id
        raise MCPError(types.INVALID_PARAMS, f"No server in scope offers the resource {uri!r}")

    async def read_resource(self, uri: str) -> types.ReadResourceResult:
        """The resource behind a URI (listed, or matching a server's template)."""
        server_id = await self._resource_server(uri)
        return await self._ask(server_id, self.service.read_resource(server_id, uri))

    async def complete(self, params: types.CompleteRequestParams) -> types.CompleteResult:
        """Completions for a prompt's or a template's argument, from the server that owns it."""
        ref = params.ref
        argument = {"name": params.argument.name, "value": params.argument.value}
        context = params.context.arguments if params.context is not None else None
        if isinstance(ref, types.PromptReference):
            route = self._route(await self.catalog.prompts(), ref.name, "prompt")
            target: types.PromptReference | types.ResourceTemplateReference = ref.model_copy(
                update={"name": route.tool_name}
            )
        else:
            route = self._route(await self.catalog.templates(), str(ref.uri), "resource template")
            target = ref
        return await self._ask(route.server_id, self.service.complete(route.server_id, target, argument, context))

    async def set_level(self, ctx: Context, level: types.LoggingLevel) -> None:
        """The client's log level: kept for it, and asked of every connected server in scope."""
        self.upstreams.track(ctx).log_level = level
        for record in await self.catalog.records():
            try:
                await self.service.set_logging_level(record.id, level)
            except ElftiaError as exc:
                log.info("%s: logging level not set: %s", record.name, exc)

    async def close(self) -> None:
        """Stop every server this gateway started (once; later calls do nothing)."""
        if self._closed:
            return
        self._closed = True
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        for task in list(self._tasks):
            task.cancel()
        await self.service.cleanup()


def template_matches(template: str, uri: str) -> bool:
    """Whether ``uri`` fits an RFC 6570 template (simple ``{var}`` and reserved ``{+var}`` expressions)."""
    pattern = ""
    for part in re.split(r"(\{[^}]*\})", template):
        if part.startswith("{") and part.endswith("}"):
            pattern += ".+" if part[1:2] in "+#" and len(part) > 2 else "[^/?#]+"
        else:
            pattern += re.escape(part)
    return re.fullmatch(pattern, uri) is not None
