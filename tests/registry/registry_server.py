"""A test MCP Registry: the registry's read API served from ``server.json`` data, on 127.0.0.1.

    with serve_registry(load_entries(DATA_DIR), page_size=2) as registry:
        registry.url                       # http://127.0.0.1:PORT
        registry.publish(server_json)      # a new version becomes the latest
        registry.mode = "html"             # misbehave: html, malformed, huge, slow, old-cursor

Endpoints (as the official registry, API v0.1): ``GET /v0.1/servers`` (``search``, ``limit``,
``cursor``, ``version=latest``, ``updated_since`` (deleted entries included, as the registry
does); pages of ``page_size`` at most),
``GET /v0.1/servers/{name}/versions``, ``GET /v0.1/servers/{name}/versions/{version|latest}``,
and ``GET /files/{name}`` for downloads (``.mcpb`` bundles). Answers are
``{servers: [{server, _meta}], metadata: {count, nextCursor}}`` with the status and ``isLatest``
under ``_meta["io.modelcontextprotocol.registry/official"]``.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

META = "io.modelcontextprotocol.registry/official"
_EPOCH = datetime.datetime(2026, 6, 1, tzinfo=datetime.UTC)
DATA_DIR = Path(__file__).resolve().parent / "data"


@dataclass
class Published:
    """One published version."""

    server: dict[str, Any]
    status: str = "active"
    published_at: str = "2026-01-01T00:00:00Z"
    status_message: str | None = None
    updated_at: str | None = None
    """When its status last changed (None: when it was published)."""


@dataclass
class LocalRegistry:
    """The registry's data and behaviour; change them while it serves."""

    entries: list[Published] = field(default_factory=list)
    page_size: int = 2
    files: dict[str, bytes] = field(default_factory=dict)
    mode: str = "normal"
    url: str = ""
    requests: list[str] = field(default_factory=list)
    _clock: int = 0

    def publish(self, server: dict[str, Any], status: str = "active") -> None:
        """Publish a version (later ones are newer, so the last one is the latest)."""
        self._clock += 1
        stamp = (_EPOCH + datetime.timedelta(seconds=self._clock)).strftime("%Y-%m-%dT%H:%M:%SZ")
        self.entries.append(Published(server, status, stamp))

    def set_status(self, name: str, status: str, message: str | None = None, at: str | None = None) -> None:
        """Deprecate or delete every version of ``name`` (with a ``statusMessage``; ``at``: its ``updatedAt``)."""
        self._clock += 1
        for item in self.entries:
            if item.server["name"] == name:
                item.status, item.status_message, item.updated_at = status, message, at

    def latest(self) -> dict[str, Published]:
        """The latest version of each name."""
        out: dict[str, Published] = {}
        for item in self.entries:
            out[item.server["name"]] = item
        return out

    def wire(self, item: Published, latest: dict[str, Published] | None = None) -> dict[str, Any]:
        """``{server, _meta}`` (``latest``: :meth:`latest`, when the caller has it already)."""
        is_latest = (latest or self.latest())[item.server["name"]] is item
        stamp = item.published_at
        meta = {
            "status": item.status,
            "isLatest": is_latest,
            "publishedAt": stamp,
            "updatedAt": item.updated_at or stamp,
        }
        if item.status_message is not None:
            meta["statusMessage"] = item.status_message
        return {"server": item.server, "_meta": {META: meta}}


def load_entries(folder: Path = DATA_DIR) -> list[dict[str, Any]]:
    """The ``server.json`` files of ``folder`` in name order (``name@version.json``, oldest version first)."""
    return [json.loads(path.read_text()) for path in sorted(folder.glob("*.json"))]


def _app(registry: LocalRegistry) -> Starlette:
    async def servers(request: Request) -> Response:
        registry.requests.append(str(request.url))
        if registry.mode == "slow":
            await asyncio.sleep(30)
        if registry.mode == "html":
            return Response("<!doctype html><html><body>Welcome</body></html>", media_type="text/html")
        if registry.mode == "malformed":
            return Response('{"servers": [', media_type="application/json")
        if registry.mode == "huge":
            return Response(b'{"servers": ["' + b"x" * (9 * 1024 * 1024) + b'"]}', media_type="application/json")
        query = request.query_params
        latest = registry.latest()
        items = sorted(latest.values(), key=lambda p: p.server["name"])
        if query.get("version") != "latest":
            items = sorted(registry.entries, key=lambda p: p.server["name"])
        words = (query.get("search") or "").lower()
        if words:
            items = [p for p in items if words in f"{p.server['name']} {p.server.get('description', '')}".lower()]
        since = query.get("updated_since")
        if since:
            items = [p for p in items if (p.updated_at or p.published_at) > since]
        start = int(query.get("cursor") or 0)
        limit = min(int(query.get("limit") or registry.page_size), registry.page_size)
        page = items[start : start + limit]
        metadata: dict[str, Any] = {"count": len(page)}
        if start + limit < len(items):
            metadata["next_cursor" if registry.mode == "old-cursor" else "nextCursor"] = str(start + limit)
        return JSONResponse({"servers": [registry.wire(p, latest) for p in page], "metadata": metadata})

    async def versions(request: Request) -> Response:
        name = request.path_params["name"]
        items = [registry.wire(p) for p in registry.entries if p.server["name"] == name]
        if not items:
            return JSONResponse({"title": "Not Found", "status": 404, "detail": "Server not found"}, status_code=404)
        return JSONResponse({"servers": items, "metadata": {"count": len(items)}})

    async def version(request: Request) -> Response:
        name, wanted = request.path_params["name"], request.path_params["version"]
        latest = registry.latest().get(name)
        for item in registry.entries:
            wanted_here = item is latest if wanted == "latest" else item.server["version"] == wanted
            if item.server["name"] == name and wanted_here:
                return JSONResponse(registry.wire(item))
        return JSONResponse({"title": "Not Found", "status": 404, "detail": "Server not found"}, status_code=404)

    async def files(request: Request) -> Response:
        data = registry.files.get(request.path_params["name"])
        if data is None:
            return Response("not found", status_code=404)
        return Response(data, media_type="application/octet-stream")

    return Starlette(
        routes=[
            Route("/v0.1/servers", servers),
            Route("/v0.1/servers/{name:path}/versions/{version}", version),
            Route("/v0.1/servers/{name:path}/versions", versions),
            Route("/files/{name}", files),
        ]
    )


@contextmanager
def serve_registry(servers: list[dict[str, Any]] | None = None, page_size: int = 2) -> Iterator[LocalRegistry]:
    """Serve a :class:`LocalRegistry` with ``servers`` published in order, on a free port of 127.0.0.1."""
    registry = LocalRegistry(page_size=page_size)
    for server in servers or []:
        registry.publish(server)
    app = _app(registry)
    config = uvicorn.Config(
        app, host="127.0.0.1", port=0, log_level="warning", lifespan="off", timeout_graceful_shutdown=1
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the test registry did not start")
        threading.Event().wait(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    registry.url = f"http://127.0.0.1:{port}"
    try:
        yield registry
    finally:
        server.should_exit = True
        thread.join(10)
