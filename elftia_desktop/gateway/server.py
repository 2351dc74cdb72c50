"""The upstream MCP server of the gateway, on the SDK's low-level ``Server``.

Every kind is served: tools (or the hub's meta-tools), prompts, resources, resource templates,
completions and logging, and the three ``list_changed`` notifications are announced. Lists come
in one page (the catalog already holds everything). Skills over MCP (``skills/list``, ``skills/get``
and their files) are served too, the extension declared (:mod:`elftia_desktop.gateway.skills`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types as types
from mcp.server import NotificationOptions, Server
from mcp.server.context import CallNext, HandlerResult
from mcp.server.models import InitializationOptions
from mcp.server.subscriptions import ListenHandler
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from elftia_desktop import __version__
from elftia_desktop.connections.task_calls import TaskIdParams
from elftia_desktop.core.apps import APPS_EXTENSION
from elftia_desktop.core.extensions import SKILLS_EXTENSION, TASKS_EXTENSION
from elftia_desktop.gateway import hub
from elftia_desktop.gateway.announce import HUB_INSTRUCTIONS, INSTRUCTIONS, SERVER_NAME
from elftia_desktop.gateway.catalog import Listing
from elftia_desktop.gateway.core import Context, Gateway
from elftia_desktop.gateway.input_rounds import InputRounds
from elftia_desktop.gateway.skills import GatewaySkills, GetSkillParams
from elftia_desktop.gateway.tasks import ForwardedTasks, TaskHandOver

ALL_LISTS_CHANGE = NotificationOptions(prompts_changed=True, resources_changed=True, tools_changed=True)


class GatewayServer(Server[Any]):
    """The low-level server, announcing ``list_changed`` for tools, prompts and resources by default.

    The Streamable HTTP session manager asks for the default options, so the default must say so.
    """

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        """The initialize result's options; ``list_changed`` announced unless told otherwise."""
        return super().create_initialization_options(
            notification_options or ALL_LISTS_CHANGE,
            experimental_capabilities,
            extensions,
        )


class WarmLists:
    """Middleware: a list request whose listing did not change is answered with the wire form the SDK
    made of it the first time (the SDK validates and serializes every result twice; 600 tools take
    tens of milliseconds each time).
    """

    def __init__(self, gateway: Gateway, hub_mode: bool) -> None:
        catalog = gateway.catalog
        self._gateway = gateway
        self._kinds: dict[str, Callable[[], Awaitable[Listing[Any]]]] = {
            "prompts/list": catalog.prompts,
            "resources/list": catalog.resources,
            "resources/templates/list": catalog.templates,
        }
        if not hub_mode:
            self._kinds["tools/list"] = catalog.tools

    async def __call__(self, ctx: Context, call_next: CallNext) -> HandlerResult:
        """Serve ``ctx`` from the cached wire form when there is one."""
        listing_of = self._kinds.get(ctx.method)
        if listing_of is None or (ctx.params or {}).get("cursor"):
            return await call_next(ctx)
        listing = await listing_of()
        wire = listing.wire.get(ctx.protocol_version)
        if wire is not None:
            self._gateway.upstreams.track(ctx)
            return dict(wire)
        result = await call_next(ctx)
        if isinstance(result, dict):
            listing.wire[ctx.protocol_version] = dict(result)
        return result


class Handlers:
    """The request handlers: each one notes its client, then asks the gateway."""

    def __init__(self, gateway: Gateway, hub_mode: bool) -> None:
        self.gateway = gateway
        self.hub_mode = hub_mode
        self.rounds = InputRounds()
        self.skills = GatewaySkills(gateway)
        self.tasks = ForwardedTasks(gateway.service)

    async def list_tools(self, ctx: Context, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        """``tools/list``: every tool in scope, or the hub's two."""
        self.gateway.upstreams.track(ctx)
        if self.hub_mode:
            return types.ListToolsResult(tools=hub.HUB_TOOLS)
        return types.ListToolsResult(tools=(await self.gateway.catalog.tools()).items)

    async def call_tool(
        self, ctx: Context, params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        """``tools/call``; a modern client's call runs in ``input_required`` rounds when a server asks something."""
        self.gateway.upstreams.track(ctx)
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return await self.rounds.call(params, lambda _running: self._call(ctx, params))
        return await self._call(ctx, params)

    async def _call(self, ctx: Context, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = dict(params.arguments or {})
        if self.hub_mode and params.name == hub.FIND_TOOLS.name:
            return await hub.find_tools(self.gateway, arguments)
        if self.hub_mode and params.name == hub.CALL_TOOL.name:
            return await hub.call_tool(self.gateway, ctx, arguments)
        return await self.gateway.call_tool(ctx, params.name, arguments)

    async def list_prompts(self, ctx: Context, params: types.PaginatedRequestParams | None) -> types.ListPromptsResult:
        """``prompts/list``."""
        self.gateway.upstreams.track(ctx)
        return types.ListPromptsResult(prompts=(await self.gateway.catalog.prompts()).items)

    async def get_prompt(self, ctx: Context, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        """``prompts/get``."""
        self.gateway.upstreams.track(ctx)
        return await self.gateway.get_prompt(params.name, params.arguments)

    async def list_resources(
        self, ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        """``resources/list``."""
        self.gateway.upstreams.track(ctx)
        return types.ListResourcesResult(resources=(await self.gateway.catalog.resources()).items)

    async def list_templates(
        self, ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        """``resources/templates/list``."""
        self.gateway.upstreams.track(ctx)
        return types.ListResourceTemplatesResult(resource_templates=(await self.gateway.catalog.templates()).items)

    async def read_resource(self, ctx: Context, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        """``resources/read`` (a served skill's file from its skill's server, checked against its digest)."""
        self.gateway.upstreams.track(ctx)
        skill_file = await self.skills.read_file(str(params.uri))
        return skill_file or await self.gateway.read_resource(str(params.uri))

    async def complete(self, ctx: Context, params: types.CompleteRequestParams) -> types.CompleteResult:
        """``completion/complete``."""
        self.gateway.upstreams.track(ctx)
        return await self.gateway.complete(params)

    async def set_level(self, ctx: Context, params: types.SetLevelRequestParams) -> types.EmptyResult:
        """``logging/setLevel``."""
        await self.gateway.set_level(ctx, params.level)
        return types.EmptyResult()

    async def initialized(self, ctx: Context, params: types.NotificationParams) -> None:
        """``notifications/initialized``: the client is remembered from now on."""
        self.gateway.upstreams.track(ctx)


def build_server(gateway: Gateway, *, hub_mode: bool = False) -> Server[Any]:
    """The low-level server whose handlers route every request through ``gateway``."""
    handlers = Handlers(gateway, hub_mode)
    server = GatewayServer(
        SERVER_NAME,
        version=__version__,
        instructions=HUB_INSTRUCTIONS if hub_mode else INSTRUCTIONS,
        on_list_tools=handlers.list_tools,
        on_call_tool=handlers.call_tool,
        on_list_prompts=handlers.list_prompts,
        on_get_prompt=handlers.get_prompt,
        on_list_resources=handlers.list_resources,
        on_list_resource_templates=handlers.list_templates,
        on_read_resource=handlers.read_resource,
        on_completion=handlers.complete,
        on_subscriptions_listen=ListenHandler(gateway.upstreams.bus),
    )
    # Registered directly: the constructor's on_set_logging_level warns that 2026-07-28 dropped logging,
    # but the handshake protocol the apps speak today still has it.
    server.add_request_handler("logging/setLevel", types.SetLevelRequestParams, handlers.set_level)
    server.add_notification_handler("notifications/initialized", types.NotificationParams, handlers.initialized)
    server.add_request_handler("skills/list", types.PaginatedRequestParams, handlers.skills.list_skills)
    server.add_request_handler("skills/get", GetSkillParams, handlers.skills.get_skill)
    server.extensions[SKILLS_EXTENSION] = {}
    server.add_request_handler("tasks/get", TaskIdParams, handlers.tasks.get)
    server.add_request_handler("tasks/cancel", TaskIdParams, handlers.tasks.cancel)
    server.extensions[TASKS_EXTENSION] = {}  # a server's task handles and tasks/* pass through
    # Without the SDK's OpenTelemetry middleware (a no-op span per message unless an exporter is set up).
    server.middleware = [WarmLists(gateway, hub_mode), TaskHandOver(handlers.tasks)]
    if not hub_mode:  # tools, their _meta.ui and ui:// views pass through unchanged for an Apps host
        server.extensions[APPS_EXTENSION] = {}
    return server
