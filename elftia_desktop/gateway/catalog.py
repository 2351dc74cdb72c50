"""What the gateway serves, gathered from the servers in scope and kept until something changes.

Each kind (tools, prompts, resources, resource templates) is fetched from every server in scope
concurrently; a server that fails is left out and named in ``errors`` (the others are served).
Tools and prompts are renamed ``server__name`` and ``routes`` leads each name back to
``(server id, original name)``; resources keep their URIs (the first server in the config wins
a URI two servers share). A kind is rebuilt only after :meth:`Catalog.drop`, or when it is older
than the pool's tool cache.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import mcp_types as types

from elftia_desktop.connections.service import McpService
from elftia_desktop.connections.tool_cache import TOOL_CACHE_TTL
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.core.tool_names import prefixed_names
from elftia_desktop.gateway.scope import Scope
from elftia_desktop.tools.names import ToolRef

log = logging.getLogger(__name__)

KINDS = ("tools", "prompts", "resources", "templates")
T = TypeVar("T")


@dataclass
class Listing(Generic[T]):
    """One kind as the gateway serves it."""

    items: list[T] = field(default_factory=list)
    routes: dict[str, ToolRef] = field(default_factory=dict)
    """Gateway name (or URI, URI template) -> the server and the item's own name."""
    errors: dict[str, str] = field(default_factory=dict)
    """Server name -> why its items are missing."""
    built_at: float = field(default_factory=time.monotonic)
    wire: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)
    """The list result as the SDK serialized it, by protocol version (a warm list is sent from here)."""


Fetch = Callable[[str], Awaitable[list[Any]]]


class Catalog:
    """The cached listings of one gateway over one pool."""

    def __init__(self, service: McpService, scope: Callable[[], Scope]) -> None:
        self.service = service
        self._scope = scope
        self._cache: dict[str, Listing[Any]] = {}
        self._building: dict[str, asyncio.Task[Listing[Any]]] = {}
        self._generation = 0

    async def records(self) -> list[McpServerRecord]:
        """The servers in scope now."""
        return self._scope().servers(await self.service.current_records())

    def drop(self, *kinds: str) -> None:
        """Forget the listings of ``kinds`` (all when none given)."""
        self._generation += 1
        for kind in kinds or KINDS:
            self._cache.pop(kind, None)
            self._building.pop(kind, None)

    def warm(self, kind: str) -> Listing[Any] | None:
        """The listing of ``kind`` while it is built and fresh (sync); None when a request would build it."""
        cached = self._cache.get(kind)
        return cached if cached is not None and time.monotonic() - cached.built_at < TOOL_CACHE_TTL else None

    async def _get(self, kind: str, build: Callable[[], Awaitable[Listing[Any]]]) -> Listing[Any]:
        cached = self.warm(kind)
        if cached is not None:
            return cached
        task = self._building.get(kind)
        if task is None:  # concurrent requests share one build
            task = self._building[kind] = asyncio.get_running_loop().create_task(self._build(kind, build))
        return await asyncio.shield(task)

    async def _build(self, kind: str, build: Callable[[], Awaitable[Listing[Any]]]) -> Listing[Any]:
        generation = self._generation
        try:
            listing = await build()
        finally:
            if self._building.get(kind) is asyncio.current_task():
                del self._building[kind]
        if generation == self._generation:  # nothing was dropped meanwhile
            self._cache[kind] = listing
        return listing

    async def _gather(self, fetch: Fetch) -> tuple[list[tuple[McpServerRecord, list[Any]]], dict[str, str]]:
        records = await self.records()
        outcomes = await asyncio.gather(*(fetch(r.id) for r in records), return_exceptions=True)
        found: list[tuple[McpServerRecord, list[Any]]] = []
        errors: dict[str, str] = {}
        for record, outcome in zip(records, outcomes, strict=True):
            if isinstance(outcome, Exception):
                errors[record.name] = str(outcome) or type(outcome).__name__
                log.warning("%s left out: %s", record.name, errors[record.name])
            elif isinstance(outcome, BaseException):
                raise outcome
            else:
                found.append((record, outcome))
        return found, errors

    async def tools(self) -> Listing[types.Tool]:
        """The tools in scope, renamed ``server__tool``."""
        return await self._get("tools", self._build_tools)

    async def _build_tools(self) -> Listing[types.Tool]:
        found, errors = await self._gather(self.service.list_tool_defs)
        scope = self._scope()
        chosen = [(record, tool) for record, tools in found for tool in tools if scope.allows_tool(record, tool.name)]
        return _renamed(chosen, errors)

    async def prompts(self) -> Listing[types.Prompt]:
        """The prompts in scope, renamed ``server__prompt``."""
        return await self._get("prompts", self._build_prompts)

    async def _build_prompts(self) -> Listing[types.Prompt]:
        found, errors = await self._gather(self.service.list_prompts)
        return _renamed([(record, prompt) for record, prompts in found for prompt in prompts], errors)

    async def resources(self) -> Listing[types.Resource]:
        """The resources in scope, by URI."""
        return await self._get("resources", lambda: self._build_by_uri(self.service.list_resources, "uri"))

    async def templates(self) -> Listing[types.ResourceTemplate]:
        """The resource templates in scope, by URI template."""
        return await self._get(
            "templates", lambda: self._build_by_uri(self.service.list_resource_templates, "uri_template")
        )

    async def _build_by_uri(self, fetch: Fetch, key: str) -> Listing[Any]:
        found, errors = await self._gather(fetch)
        listing: Listing[Any] = Listing(errors=errors)
        for record, items in found:
            for item in items:
                uri = str(getattr(item, key))
                if uri in listing.routes:
                    log.info("%s: %s is also offered by an earlier server; that one is served", record.name, uri)
                    continue
                listing.routes[uri] = ToolRef(record.id, uri)
                listing.items.append(item)
        return listing


def _renamed(chosen: Sequence[tuple[McpServerRecord, Any]], errors: dict[str, str]) -> Listing[Any]:
    routes = prefixed_names([(record.id, record.name, item.name) for record, item in chosen])
    items = [item.model_copy(update={"name": name}) for name, (_, item) in zip(routes, chosen, strict=True)]
    return Listing(items=items, routes=routes, errors=errors)
