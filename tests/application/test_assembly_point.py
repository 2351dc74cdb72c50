"""One assembly point: nothing in the app but ``application/services.py`` builds ``McpService``, and what it opens."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from elftia_desktop.application.services import open_services
from elftia_desktop.core.presets import load_presets
from elftia_desktop.core.settings_store import AppSettings, SettingsStore

PACKAGE = Path(__file__).resolve().parents[2] / "elftia_desktop"
ASSEMBLY_POINT = PACKAGE / "application" / "services.py"


@pytest.fixture
def anyio_backend() -> str:
    """The services run on asyncio."""
    return "asyncio"


def _names_mcp_service(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "McpService") or (
        isinstance(node, ast.Attribute) and node.attr == "McpService"
    )


def _constructions(path: Path) -> list[int]:
    """Lines calling ``McpService(...)`` or passing it on to be called (``to_thread(McpService, ...)``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and any(_names_mcp_service(n) for n in [node.func, *node.args])
    ]


def test_only_the_assembly_point_builds_mcp_service() -> None:
    found = {
        str(path.relative_to(PACKAGE)): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if (lines := _constructions(path))
    }
    assert list(found) == [str(ASSEMBLY_POINT.relative_to(PACKAGE))], found
    assert len(found[str(ASSEMBLY_POINT.relative_to(PACKAGE))]) == 1


@pytest.mark.anyio
async def test_open_services_applies_the_saved_settings() -> None:
    SettingsStore().save(AppSettings(connect_timeout=7, call_timeout=9, log_lines=60))
    async with open_services(builtin_servers=False) as services:
        assert services.settings.connect_timeout == 7
        defaults = services.mcp.pool.defaults
        assert (defaults.connect, defaults.call, defaults.log_lines) == (7, 9, 60)
        assert services.agents.list()[0].name == "Assistant"  # a fresh install's agent
        assert services.catalog.all() == []  # the CLI and the gateway get no built-in servers


@pytest.mark.anyio
async def test_the_window_gets_the_builtin_servers_on_a_fresh_install() -> None:
    builtins = [p.name for p in load_presets() if p.install_source == "builtin"]
    assert builtins
    async with open_services(builtin_servers=True) as services:
        assert [r.name for r in services.catalog.all()] == builtins
