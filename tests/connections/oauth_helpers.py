"""Helpers for the OAuth tests: the OAuth test server's URL and test hooks, adding an OAuth server."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import httpx2

from elftia_desktop.connections.service import McpService
from elftia_desktop.core.models import McpServerInput
from tests.connections.pool_helpers import add_server


def base_of(url: str) -> str:
    """``http://127.0.0.1:PORT`` of a server URL."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def stats(url: str) -> dict[str, Any]:
    """What the OAuth test server counted (registrations, refreshes, last scopes ...)."""
    data: dict[str, Any] = httpx2.get(f"{base_of(url)}/test/stats", timeout=10).json()
    return data


def grown(url: str, before: dict[str, Any], counter: str) -> int:
    """How much the OAuth test server's ``counter`` grew since ``before`` (its stats when the test began)."""
    return int(stats(url)[counter]) - int(before[counter])


def revoke_all(url: str) -> None:
    """Revoke every token the OAuth test server issued."""
    httpx2.post(f"{base_of(url)}/test/revoke", timeout=10).raise_for_status()


async def add_oauth(service: McpService, url: str, kind: str = "http", name: str = "signin", **oauth: Any) -> str:
    """Add an active, trusted OAuth server (its first connect meets the 401 and stops at ``auth required``)."""
    config = {"url": url, "oauth": oauth}
    return await add_server(service, McpServerInput(name=name, type=kind, config=config, is_trusted=True))
