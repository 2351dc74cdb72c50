"""Both protocol eras on one ``ClientSession``, with the SDK client's own connect and call policies.

``EraSession`` is the session the pool hands its operations. ``connect(mode)`` is what
``mcp.Client.__aenter__`` does (``auto``: the SDK's ``negotiate_auto`` probes ``server/discover``
and falls back to the ``initialize`` handshake; ``legacy``: the handshake; a modern version:
adopted directly). A plain ``call_tool`` / ``get_prompt`` / ``read_resource`` is driven to its final
result by the SDK's input-required driver (``input_required`` answered through our elicitation,
sampling and roots callbacks), a ``HEADER_MISMATCH`` is answered by re-listing once, and the first
page of a list goes through the SDK's response cache (``ttlMs``/``cacheScope``), as ``Client`` does.
``Client`` itself is not used: it imports the SDK's server side, which the CLI's fast start avoids.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import mcp_types as types
from mcp.client._input_required import run_input_required_driver
from mcp.client._probe import negotiate_auto
from mcp.client.caching import ClientResponseCache, InMemoryResponseCacheStore
from mcp.client.session import ClientRequestContext, ClientSession
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

log = logging.getLogger(__name__)

R = TypeVar("R")
MAX_RELIST_PAGES = 100


def new_cache(session: Callable[[], ClientSession | None]) -> ClientResponseCache:
    """A per-connection response cache honouring the server's ``ttlMs``/``cacheScope`` hints."""

    def version() -> str | None:
        """The protocol version of the connection's current session (None before it has one)."""
        current = session()
        return current.protocol_version if current is not None else None

    return ClientResponseCache(
        store=InMemoryResponseCacheStore(),
        partition="default",
        arm_id=uuid.uuid4().hex,
        default_ttl_ms=0,
        clock=time.monotonic,
        share_public=False,
        negotiated_version=version,
    )


class EraSession(ClientSession):
    """A ``ClientSession`` that negotiates the era and finishes multi-round calls itself."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.cache = new_cache(lambda: self)

    async def evict(self, message: object) -> None:
        """Forget cached lists a change notification (or a listen event, as one) makes stale."""
        if isinstance(message, types.ServerNotification):
            try:
                await self.cache.evict_for_notification(message)
            except Exception:  # a cache fault must not stop the notification
                log.exception("response cache eviction failed")

    async def connect(self, mode: str) -> None:
        """Agree on the era: ``auto`` (discover, else handshake), ``legacy`` or a pinned modern version."""
        if mode == "legacy":
            await self.initialize()
        elif mode == "auto":
            await negotiate_auto(self)
        else:
            self.adopt(
                types.DiscoverResult(
                    supported_versions=[mode],
                    capabilities=types.ServerCapabilities(),
                    result_type="complete",
                    ttl_ms=0,
                    cache_scope="public",
                )
            )

    @property
    def modern(self) -> bool:
        """True on a 2026-07-28+ connection."""
        return self.protocol_version in MODERN_PROTOCOL_VERSIONS

    async def call_tool(self, name: str, arguments: Any = None, *args: Any, **kwargs: Any) -> Any:
        """``tools/call``; a plain call is driven to its final result (input rounds, one re-list)."""
        if _raw(kwargs):
            return await super().call_tool(name, arguments, *args, **kwargs)
        retry = self._call_rounds(name, arguments, *args, **kwargs)
        return await self._drive(await retry(None, None), retry)

    def _call_rounds(
        self, name: str, arguments: Any, *args: Any, **kwargs: Any
    ) -> Callable[[types.InputResponses | None, str | None], Awaitable[Any]]:
        """One round of a plain call (with the input so far), re-listing once on a ``HEADER_MISMATCH``."""

        async def send(responses: types.InputResponses | None, state: str | None) -> Any:
            """Send one round of the call, with the input gathered so far."""
            return await super(EraSession, self).call_tool(
                name,
                arguments,
                *args,
                input_responses=responses,
                request_state=state,
                allow_input_required=True,
                **kwargs,
            )

        async def retry(responses: types.InputResponses | None, state: str | None) -> Any:
            """One round; on a stale schema (``HEADER_MISMATCH``) re-list once and send it again."""
            try:
                return await send(responses, state)
            except MCPError as mismatch:
                if mismatch.code != types.HEADER_MISMATCH or not self.modern:
                    raise
                await self._relist(name)  # the spec's recovery: the listed schema was stale
                return await send(responses, state)

        return retry

    async def get_prompt(self, name: str, arguments: Any = None, **kwargs: Any) -> Any:
        """``prompts/get``; a plain call is driven to its final result."""
        if _raw(kwargs):
            return await super().get_prompt(name, arguments, **kwargs)

        async def retry(responses: types.InputResponses | None, state: str | None) -> Any:
            """The same request again with the answers to the server's input requests."""
            return await super(EraSession, self).get_prompt(
                name, arguments, input_responses=responses, request_state=state, allow_input_required=True, **kwargs
            )

        return await self._drive(await retry(None, None), retry)

    async def read_resource(self, uri: Any, **kwargs: Any) -> Any:
        """``resources/read``; a plain call is driven to its final result."""
        if _raw(kwargs):
            return await super().read_resource(uri, **kwargs)

        async def retry(responses: types.InputResponses | None, state: str | None) -> Any:
            """The same request again with the answers to the server's input requests."""
            return await super(EraSession, self).read_resource(
                uri, input_responses=responses, request_state=state, allow_input_required=True, **kwargs
            )

        return await self._drive(await retry(None, None), retry)

    async def _drive(
        self, first: Any, retry: Callable[[types.InputResponses | None, str | None], Awaitable[Any]]
    ) -> Any:
        """The SDK's input-required loop, each embedded request answered by this session's callbacks."""
        if not isinstance(first, types.InputRequiredResult):
            return first

        async def dispatch(key: str, request: types.InputRequest) -> types.InputResponse | types.ErrorData:
            """One input request of the server, answered by the session's handlers."""
            meta = request.params.meta if request.params else None
            return await self.dispatch_input_request(
                ClientRequestContext(session=self, request_id=key, meta=meta), request
            )

        return await run_input_required_driver(first, dispatch=dispatch, retry=retry)

    async def _relist(self, name: str) -> None:
        cursor: str | None = None
        for _ in range(MAX_RELIST_PAGES):
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else types.PaginatedRequestParams()
            page = await super().list_tools(params=params)
            cursor = page.next_cursor
            if cursor is None or any(tool.name == name for tool in page.tools):
                return

    async def _cached(
        self,
        method: str,
        params: types.PaginatedRequestParams | None,
        send: Callable[[], Awaitable[R]],
        absorb: Callable[[R], object] | None = None,
    ) -> R:
        """The first page through the response cache (only a modern server's ``ttlMs`` makes it stay)."""
        if params is not None:
            return await send()
        hit: Any = await self.cache.read(method, "")
        if hit is not None:
            if absorb is not None:
                absorb(hit)  # a served listing rebuilds the session's per-tool state, as a fetched one does
            return hit  # type: ignore[no-any-return]
        generation = self.cache.capture(method, "")
        result = await send()
        await self.cache.write(method, "", result, generation, "use")  # type: ignore[arg-type]
        return result

    async def list_tools(self, *, params: types.PaginatedRequestParams | None = None) -> types.ListToolsResult:
        """``tools/list``; the first page may come from the cache within the server's ``ttlMs``."""
        return await self._cached(
            "tools/list",
            params,
            lambda: super(EraSession, self).list_tools(params=params),
            lambda hit: self._absorb_tool_listing(hit, complete=hit.next_cursor is None),
        )

    async def list_prompts(self, *, params: types.PaginatedRequestParams | None = None) -> types.ListPromptsResult:
        """``prompts/list``; the first page may come from the cache within the server's ``ttlMs``."""
        return await self._cached("prompts/list", params, lambda: super(EraSession, self).list_prompts(params=params))

    async def list_resources(self, *, params: types.PaginatedRequestParams | None = None) -> types.ListResourcesResult:
        """``resources/list``; the first page may come from the cache within the server's ``ttlMs``."""
        return await self._cached(
            "resources/list", params, lambda: super(EraSession, self).list_resources(params=params)
        )


def _raw(kwargs: dict[str, Any]) -> bool:
    """True when the caller drives the rounds itself (a resumed exchange, or asking for the input-required shape).

    ``allow_claimed`` is not: a claimed result (a task handle) ends the rounds like a final one.
    """
    return any(kwargs.get(key) for key in ("allow_input_required", "input_responses", "request_state"))
