"""A real ``McpRouter`` over the real services on a real service loop, for GUI tests."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.bridge.service_loop import ServiceLoop
from elftia_desktop.bridge.services import AppServices, build_services
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.models import McpServerInput, McpServerRecord
from elftia_desktop.core.secrets import SecretVault

ROOT = Path(__file__).resolve().parents[2]


def server_input(name: str, module: str = "basic", trusted: bool = True, **extra: Any) -> McpServerInput:
    """A stdio server running ``tests.servers.<module>`` from the repo root."""
    return McpServerInput.model_validate(
        {
            "name": name,
            "config": {"command": sys.executable, "args": ["-m", f"tests.servers.{module}"], "cwd": str(ROOT)},
            "isTrusted": trusted,
        }
        | extra
    )


def add_servers(*servers: McpServerInput) -> list[McpServerRecord]:
    """Write servers into the test's config store before the app opens it."""
    catalog = ServerCatalog(ConfigStore(), SecretVault())
    records = [catalog.add(s) for s in servers]
    return [r for r in records if r is not None]


@contextmanager
def live_router() -> Iterator[tuple[McpRouter, ServiceLoop[AppServices]]]:
    """A router over freshly built services; every connection is closed afterwards."""
    loop: ServiceLoop[AppServices] = ServiceLoop(build_services)
    loop.start()
    router = McpRouter(loop)
    try:
        yield router, loop
    finally:

        async def close(services: AppServices) -> None:
            await services.close()

        loop.stop(cleanup=close, timeout=30)


def connect_servers(qtbot: Any, router: McpRouter, *records: McpServerRecord, timeout: int = 30_000) -> None:
    """Connect ``records`` through the router (the window counts tools of connected servers only)."""
    done: list[object] = []
    for record in records:
        router.servers.test(record.id).then(router.signals, done.append, done.append)
    qtbot.waitUntil(lambda: len(done) == len(records), timeout=timeout)


def settle(qtbot: Any, router: McpRouter, timeout: int = 60_000) -> None:
    """A round trip through the service loop and back to the UI thread (``mcp:states``).

    What the UI submitted before has reached the loop, and the answers queued before this one
    have been delivered: the barrier for a test that checks that something did NOT happen.
    """
    answered: list[Any] = []
    router.servers.states().then(router.signals, answered.append)
    qtbot.waitUntil(lambda: bool(answered), timeout=timeout)
