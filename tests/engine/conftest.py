"""Fixtures for the engine tests: asyncio, and a real McpService on a temporary data folder."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from keyring.backends.fail import Keyring as NoKeyring

from elftia_desktop.connections.service import McpService
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.secrets import SecretVault
from tests.builtin_servers.builtin_helpers import builtin_servers_in_memory


@pytest.fixture
def anyio_backend() -> str:
    """The MCP SDK runs on asyncio here."""
    return "asyncio"


@pytest.fixture
async def service(isolated_data_dir: Path) -> AsyncIterator[McpService]:
    """A service whose catalog lives in the test's data folder; cleaned up after the test."""
    vault = SecretVault(backend=NoKeyring(), fallback_path=isolated_data_dir / "secrets.json")
    catalog = ServerCatalog(ConfigStore(isolated_data_dir / "mcp-config.json"), vault)
    svc = McpService(catalog, runtime_dir=isolated_data_dir / "runtime")
    try:
        yield svc
    finally:
        await svc.cleanup()


@pytest.fixture
def builtin_servers(memory_servers: list[str]) -> Iterator[list[str]]:
    """The built-in servers (and, through ``memory_servers``, the test servers) open in this process;
    the built-in ones opened."""
    with builtin_servers_in_memory() as opened:
        yield opened
