"""A fast lane in this process over a real pool: the app's side is an in-memory channel of JSON-RPC messages.

The servers are real processes over stdio, the service, gateway and lane the host's own; only
the socket between the app and the host is replaced by :class:`MemoryChannel` (a ``Channel``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from elftia_desktop.connections.service import McpService
from elftia_desktop.gateway.scope import ScopeSource
from elftia_desktop.host.fast_lane import FastLane
from elftia_desktop.host.links import Callers, HostedGateway
from tests.gateway.gateway_helpers import open_catalog


@dataclass
class MemoryChannel:
    """What the lane writes to the app, as messages; :meth:`next` waits for the next one that matches."""

    sent: list[dict[str, Any]] = field(default_factory=list)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)

    async def read(self) -> bytes | None:
        """The lane never reads (the test hands it messages with ``take``)."""
        await anyio.sleep_forever()
        return None

    def write(self, payload: bytes) -> None:
        """One message to the app."""
        self.sent.append(json.loads(payload))
        self.arrived.set()

    async def drain(self) -> None:
        """Nothing is buffered."""

    async def answer(self, request_id: Any, limit: float = 60.0) -> dict[str, Any]:
        """The response to ``request_id`` (waits for it)."""
        with anyio.fail_after(limit):
            while True:
                for message in self.sent:
                    if message.get("id") == request_id and "method" not in message:
                        return message
                self.arrived.clear()
                await self.arrived.wait()

    def notes(self, method: str) -> list[dict[str, Any]]:
        """The params of the notifications (or requests) of ``method`` sent so far."""
        return [m for m in self.sent if m.get("method") == method]


def call_payload(request_id: Any, name: str, arguments: dict[str, Any], token: Any = None) -> bytes:
    """A ``tools/call`` as the app sends it (``token``: its progress token)."""
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if token is not None:
        params["_meta"] = {"progressToken": token}
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}).encode()


def initialize_payload(version: str, capabilities: dict[str, Any] | None = None) -> bytes:
    """The app's ``initialize``."""
    params = {
        "protocolVersion": version,
        "capabilities": capabilities or {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    return json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}).encode()


@dataclass
class Rig:
    """One pool, its hosted gateway, and lanes on it."""

    service: McpService
    gateway: HostedGateway
    callers: Callers
    group: anyio.abc.TaskGroup

    def lane(
        self, version: str = "2025-11-25", capabilities: dict[str, Any] | None = None
    ) -> tuple[FastLane, MemoryChannel]:
        """A new client's lane after its ``initialize``."""
        channel = MemoryChannel()
        lane = FastLane(self.gateway, self.callers, channel, hub=False)
        lane.start(self.group)
        lane.take(initialize_payload(version, capabilities))
        return lane, channel


@asynccontextmanager
async def rig(data_dir: Path, call_timeout: float | None = None) -> AsyncIterator[Rig]:
    """A service on ``data_dir``'s catalog with a hosted gateway whose tool list is built (servers connected)."""
    service = McpService(open_catalog(data_dir), runtime_dir=data_dir / "runtime")
    callers = Callers()
    gateway = HostedGateway(service, ScopeSource().current, callers, call_timeout)
    try:
        async with anyio.create_task_group() as group:
            await gateway.catalog.tools()
            yield Rig(service, gateway, callers, group)
            group.cancel_scope.cancel()
    finally:
        await gateway.close()
