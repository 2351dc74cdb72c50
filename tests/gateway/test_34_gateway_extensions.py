"""Issue 34: the gateway declares MCP Apps in its capabilities (full mode: it passes tools, their ``_meta.ui``
and ``ui://`` views through unchanged); the hub, which keeps app-only tools from models, does not. Both
declare Skills over MCP (the gateway serves the accepted skills: ``test_34_gateway_skills.py``) and Tasks (a
server's task handles and ``tasks/*`` are forwarded: ``test_34_gateway_tasks.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from elftia_desktop.core.apps import APPS_EXTENSION
from elftia_desktop.core.extensions import SKILLS_EXTENSION, TASKS_EXTENSION
from tests.gateway.gateway_helpers import add_stdio, open_catalog
from tests.helpers.memory_gateway import gateway_transport

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]


@pytest.mark.parametrize(
    ("hub", "declared"),
    [
        (False, {APPS_EXTENSION: {}, SKILLS_EXTENSION: {}, TASKS_EXTENSION: {}}),
        (True, {SKILLS_EXTENSION: {}, TASKS_EXTENSION: {}}),
    ],
)
async def test_the_gateway_declares_apps_in_full_mode(isolated_data_dir: Path, hub: bool, declared: object) -> None:
    add_stdio(open_catalog(isolated_data_dir), "apps", "apps")
    async with Client(gateway_transport(hub=hub), mode="auto") as client:
        assert client.protocol_version == "2026-07-28"
        assert client.server_capabilities.extensions == declared
