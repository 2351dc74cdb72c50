"""Fixtures for the engine tests: asyncio, and a real McpService on a temporary data folder."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from keyring.backends.fail import Keyring as NoKeyring

from elftia_desktop.connections.service import McpService
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.secrets import SecretVault


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
