"""Fixtures for the connection pool tests: a service on a temporary data folder, helpers to add servers.

Every server is real: the MCPServer test servers of ``tests/servers`` run as subprocesses
over stdio, or over SSE / Streamable HTTP on 127.0.0.1 (``serve_http``).
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from keyring.backends.fail import Keyring as NoKeyring

from elftia_desktop.connections.service import McpService
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.secrets import SecretVault

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


@pytest.fixture
def anyio_backend() -> str:
    """The pool runs on asyncio."""
    return "asyncio"


@pytest.fixture
def catalog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ServerCatalog]:
    """A catalog on a temporary data folder, secrets in a 0600 file there."""
    monkeypatch.setenv("ELFTIA_DATA_DIR", str(tmp_path))
    vault = SecretVault(backend=NoKeyring(), fallback_path=tmp_path / "secrets.json")
    yield ServerCatalog(ConfigStore(tmp_path / "mcp-config.json"), vault)


@pytest.fixture
async def service(catalog: ServerCatalog, tmp_path: Path) -> AsyncIterator[McpService]:
    """A service; cleaned up after the test."""
    svc = McpService(catalog, runtime_dir=tmp_path / "runtime")
    try:
        yield svc
    finally:
        await svc.cleanup()
