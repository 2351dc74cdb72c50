"""Fixtures of the approval tests: asyncio, and the approvals test server added to a real catalog."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from keyring.backends.fail import Keyring as NoKeyring

from elftia_desktop.connections.service import McpService
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.models import McpServerInput, McpServerRecord
from elftia_desktop.core.secrets import SecretVault
from tests.servers.serve_http import server_command


@pytest.fixture
def anyio_backend() -> str:
    """The SDK runs on asyncio here."""
    return "asyncio"


@pytest.fixture
def catalog(isolated_data_dir: Path) -> ServerCatalog:
    """The catalog of the test's data folder (the one the CLI opens too)."""
    vault = SecretVault(backend=NoKeyring(), fallback_path=isolated_data_dir / "secrets.json")
    return ServerCatalog(ConfigStore(isolated_data_dir / "mcp-config.json"), vault)


@pytest.fixture
def notes(catalog: ServerCatalog) -> McpServerRecord:
    """The approvals test server, added as a new server (trusted)."""
    command = server_command("approvals")
    server = McpServerInput(name="notes", config={"command": command[0], "args": command[1:]}, is_trusted=True)
    record = catalog.add(server)
    assert record is not None
    return record


@pytest.fixture
async def service(catalog: ServerCatalog, isolated_data_dir: Path) -> AsyncIterator[McpService]:
    """A pool on the catalog; its servers are stopped after the test."""
    svc = McpService(catalog, runtime_dir=isolated_data_dir / "runtime")
    try:
        yield svc
    finally:
        await svc.cleanup()
