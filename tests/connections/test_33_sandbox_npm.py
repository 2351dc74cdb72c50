"""Issue 33: the npm filesystem, memory and everything servers work sandboxed through the pool (npx installs
them through the sandbox's proxy, allowed only the npm registry); the filesystem server only in its folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from elftia_desktop.connections.service import McpService
from elftia_desktop.core.models import McpServerInput
from elftia_desktop.platform.sandbox import sandbox_support
from tests.connections.pool_helpers import add_server

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.network,
    pytest.mark.timeout(600),
    pytest.mark.skipif(sandbox_support() is not None or shutil.which("npx") is None, reason="needs bwrap and npx"),
]
NPM = {"net": "allow", "allowNet": ["registry.npmjs.org:443"]}


def npx(name: str, package: str, *args: str, sandbox: dict[str, object] = NPM) -> McpServerInput:
    return McpServerInput(
        name=name, config={"command": "npx", "args": ["-y", package, *args]}, is_trusted=True, sandbox=sandbox
    )


async def test_filesystem_server_only_in_its_folder(service: McpService, tmp_path: Path) -> None:
    shared, secret = tmp_path / "shared", tmp_path / "private.txt"
    shared.mkdir()
    secret.write_text("secret")
    profile = NPM | {"allowWrite": [str(shared)]}
    server_id = await add_server(
        service, npx("fs", "@modelcontextprotocol/server-filesystem", str(shared), sandbox=profile)
    )
    wrote = await service.call_tool(server_id, "write_file", {"path": str(shared / "a.txt"), "content": "hi"})
    assert not wrote.is_error and (shared / "a.txt").read_text() == "hi"
    outside = await service.call_tool(server_id, "read_text_file", {"path": str(secret)})
    assert outside.is_error


@pytest.mark.parametrize(
    ("package", "tool", "arguments"),
    [
        ("@modelcontextprotocol/server-memory", "read_graph", {}),
        ("@modelcontextprotocol/server-everything", "echo", {"message": "hi"}),
    ],
)
async def test_memory_and_everything(service: McpService, package: str, tool: str, arguments: dict[str, str]) -> None:
    server_id = await add_server(service, npx("npm", package))
    result = await service.call_tool(server_id, tool, arguments)
    assert not result.is_error, result.content
