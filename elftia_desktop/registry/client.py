"""An MCP Registry over HTTP: ``GET /v0.1/servers`` with paging, versions, one version's entry.

Every failure is a specific :class:`RegistryError`: the registry cannot be reached, did not answer
within the timeout, answered with an HTML page or malformed JSON (line and column), sent a page
over :data:`MAX_PAGE_BYTES`, or an item that is not a server entry. Both ``nextCursor`` and the
older mirrors' ``next_cursor`` are followed.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx2
from pydantic import ValidationError

from elftia_desktop.core.config_store import describe_validation_error
from elftia_desktop.core.settings_store import OFFICIAL_REGISTRY_URL
from elftia_desktop.registry.entry import RegistryEntry, entry_from_wire
from elftia_desktop.registry.errors import RegistryBadAnswer, RegistryUnreachable

OFFICIAL_REGISTRY = OFFICIAL_REGISTRY_URL
REGISTRY_URL_ENV = "ELFTIA_REGISTRY_URL"
API_PREFIX = "/v0.1"
MAX_PAGE_BYTES = 8 * 1024 * 1024
"""A page larger than this is refused (a registry page of 100 entries is well under 1 MB)."""
MAX_PAGES = 1000
"""A sync stops with an error after this many pages (a cursor that never ends)."""
DEFAULT_TIMEOUT = 15.0


def registry_url_from_env(saved: str | None = None) -> str:
    """``ELFTIA_REGISTRY_URL`` if set, else the saved setting, else the official registry."""
    return (os.environ.get(REGISTRY_URL_ENV) or saved or OFFICIAL_REGISTRY).rstrip("/")


@dataclass(frozen=True)
class RegistryPage:
    """One page of ``/servers``: its entries and the cursor of the next page (None at the end)."""

    entries: list[RegistryEntry]
    next_cursor: str | None


class RegistryClient:
    """Talks to one registry; ``transport`` lets tests and benches plug in their own."""

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        transport: httpx2.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self._transport = transport
        self._http: httpx2.AsyncClient | None = None
        """The connection shared by the pages of one sync (None: one client per request)."""

    async def page(
        self,
        *,
        search: str | None = None,
        cursor: str | None = None,
        limit: int = 100,
        updated_since: str | None = None,
        latest_only: bool = True,
    ) -> RegistryPage:
        """One page of the server list."""
        data = await self._raw_page(search, cursor, limit, updated_since, latest_only)
        return RegistryPage(self._entries(data), _next_cursor(data))

    async def _raw_page(
        self, search: str | None, cursor: str | None, limit: int, updated_since: str | None, latest_only: bool = True
    ) -> Any:
        params: dict[str, str] = {"limit": str(limit)}
        if search:
            params["search"] = search
        if cursor:
            params["cursor"] = cursor
        if updated_since:
            params["updated_since"] = updated_since
            params["include_deleted"] = "true"  # the default with updated_since; said for older registries
        if latest_only:
            params["version"] = "latest"
        return await self._get_json("/servers", params)

    async def all_entries(self, *, updated_since: str | None = None, limit: int = 100) -> AsyncIterator[RegistryEntry]:
        """Every latest entry, page after page, over one connection."""
        async with self._session():
            async for entry in self._pages(updated_since, limit):
                yield entry

    async def _pages(self, updated_since: str | None, limit: int) -> AsyncIterator[RegistryEntry]:
        """Pages in order; the next one is fetched while the current one is checked (in a worker thread)."""
        cursor: str | None = None
        pending = asyncio.ensure_future(self._raw_page(None, None, limit, updated_since))
        try:
            for _ in range(MAX_PAGES):
                data = await pending
                following = _next_cursor(data)
                more = following is not None and following != cursor
                if more:
                    pending = asyncio.ensure_future(self._raw_page(None, following, limit, updated_since))
                for entry in await asyncio.to_thread(self._entries, data):
                    yield entry
                if not more:
                    return
                cursor = following
        finally:
            if not pending.done():
                pending.cancel()
        raise RegistryBadAnswer(f"{self.base_url} sent more than {MAX_PAGES} pages; stopped following its cursor")

    async def search(self, query: str, limit: int = 30) -> list[RegistryEntry]:
        """Up to ``limit`` entries matching ``query`` (following pages as needed)."""
        found: list[RegistryEntry] = []
        cursor: str | None = None
        async with self._session():
            while len(found) < limit:
                page = await self.page(search=query, cursor=cursor, limit=limit - len(found))
                found += page.entries
                if not page.next_cursor or page.next_cursor == cursor or not page.entries:
                    break
                cursor = page.next_cursor
        return found[:limit]

    async def versions(self, name: str) -> list[RegistryEntry]:
        """Every published version of one server."""
        return self._entries(await self._get_json(f"/servers/{quote(name, safe='')}/versions", {}))

    async def entry(self, name: str, version: str = "latest") -> RegistryEntry:
        """One version (or ``latest``) of one server."""
        path = f"/servers/{quote(name, safe='')}/versions/{quote(version, safe='')}"
        data = await self._get_json(path, {})
        if not isinstance(data, dict) or "server" not in data:
            raise RegistryBadAnswer(f"{self.base_url}{path}: the answer has no 'server' object")
        return self._entry(data, f"{path}")

    def _entries(self, data: Any) -> list[RegistryEntry]:
        servers = data.get("servers") if isinstance(data, dict) else None
        if not isinstance(servers, list):
            raise RegistryBadAnswer(f"{self.base_url}: the answer has no 'servers' list")
        return [self._entry(item, f"servers[{index}]") for index, item in enumerate(servers)]

    def _entry(self, item: Any, where: str) -> RegistryEntry:
        if not isinstance(item, dict):
            raise RegistryBadAnswer(f"{self.base_url}: {where} is not an object")
        try:
            return entry_from_wire(item, self.base_url)
        except ValidationError as exc:
            raise RegistryBadAnswer(f"{self.base_url}: {where}.server: {describe_validation_error(exc)}") from exc

    async def _get_json(self, path: str, params: dict[str, str]) -> Any:
        url = f"{self.base_url}{API_PREFIX}{path}"
        body, content_type, status = await self._fetch(url, params)
        text = body.decode("utf-8", errors="replace")
        if "html" in content_type or text.lstrip()[:1] == "<":
            raise RegistryBadAnswer(
                f"{url} answered with an HTML page (HTTP {status}), not the registry's JSON: "
                "is the URL the registry's base address?"
            )
        if status == 404:
            raise RegistryBadAnswer(f"{url}: not found (HTTP 404)")
        if status >= 400:
            raise RegistryBadAnswer(f"{url} answered HTTP {status}: {text[:200].strip()}")
        try:  # the size is bounded by _read_capped; pydantic bounds what is read from the tree
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise RegistryBadAnswer(
                f"The answer of {url} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
            ) from exc
        except RecursionError:
            raise RegistryBadAnswer(f"The answer of {url} is nested too deeply to be a registry page") from None

    def _new_http(self) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(timeout=self.timeout, transport=self._transport, follow_redirects=True)

    @asynccontextmanager
    async def _session(self) -> AsyncIterator[None]:
        """Share one HTTP client (and its connection) between the requests inside the block."""
        if self._http is not None:
            yield
            return
        async with self._new_http() as http:
            self._http = http
            try:
                yield
            finally:
                self._http = None

    async def _fetch(self, url: str, params: dict[str, str]) -> tuple[bytes, str, int]:
        try:
            async with self._session():
                assert self._http is not None
                async with self._http.stream(
                    "GET", url, params=params, headers={"Accept": "application/json"}
                ) as response:
                    body = await _read_capped(response, url)
                    return body, response.headers.get("content-type", ""), response.status_code
        except httpx2.TimeoutException as exc:
            raise RegistryUnreachable(f"{url} did not answer within {self.timeout:g} s") from exc
        except httpx2.HTTPError as exc:
            raise RegistryUnreachable(f"{url} cannot be reached: {exc or type(exc).__name__}") from exc


async def _read_capped(response: httpx2.Response, url: str) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > MAX_PAGE_BYTES:
            raise RegistryBadAnswer(f"{url} sent more than {MAX_PAGE_BYTES // (1024 * 1024)} MB; refused")
        chunks.append(chunk)
    return b"".join(chunks)


def _next_cursor(data: dict[str, Any]) -> str | None:
    metadata = data.get("metadata")
    if not isinstance(metadata, dict):
        return None
    cursor = metadata.get("nextCursor", metadata.get("next_cursor"))
    return cursor if isinstance(cursor, str) and cursor else None
