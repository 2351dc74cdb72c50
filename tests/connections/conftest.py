"""Fixtures for the connection pool tests: a service on a temporary data folder, helpers to add servers.

The MCPServer test servers of ``tests/servers`` run as subprocesses over stdio (or in memory, with
``memory_servers``), or over SSE / Streamable HTTP on 127.0.0.1 (``serve_http``); ``oauth_url`` is one
OAuth test server with the default options shared by a module's tests.
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
from tests.servers.serve_http import serve_http

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


@pytest.fixture(scope="module")
def oauth_url() -> Iterator[str]:
    """The OAuth test server with the default options (Streamable HTTP), one per module: the tests that use it
    sign in with clients of their own and read its counters as growth (``oauth_helpers.grown``)."""
    with serve_http("oauth") as url:
        yield url
