"""Launch lines of servers mapped to the runtime command they need."""

from __future__ import annotations

import sys

import pytest

from elftia_desktop.deps.command_map import runtime_command
from elftia_desktop.deps.requirements import runtime_for


@pytest.mark.parametrize(
    ("command", "args", "expected", "runtime"),
    [
        ("npx", ["-y", "@modelcontextprotocol/server-memory"], "npx", "node"),
        ("cmd", ["/c", "npx", "-y", "@modelcontextprotocol/server-filesystem", "C:\\x"], "npx", "node"),
        ("cmd.exe", ["/d", "/s", "/c", "npx -y @playwright/mcp@latest"], "npx", "node"),
        ("C:\\Windows\\System32\\cmd.exe", ["/c", "uvx", "mcp-server-fetch"], "uvx", "uv"),
        ("/usr/local/bin/npx", ["-y", "x"], "/usr/local/bin/npx", "node"),
        ("uvx", ["--from", "git+https://github.com/x/y", "y-server"], "uvx", "uv"),
        ("uv", ["run", "--with", "mcp", "server.py"], "uv", "uv"),
        ("npm", ["exec", "--yes", "@modelcontextprotocol/server-everything"], "npm", "node"),
        ("python", ["-m", "mcp_server_time"], "python", "python"),
        ("python3.12", ["-m", "my_server"], "python3.12", "python"),
        ("docker", ["run", "-i", "--rm", "mcp/fetch"], "docker", "docker"),
        ("env", ["-i", "A=1", "B=2", "bunx", "some-server"], "bunx", "bun"),
        ("sh", ["-c", "FOO=1 exec deno run -A server.ts"], "deno", "deno"),
        ("bash", ["-lc", "pipx run my-server"], "pipx", "pipx"),
        ("cmd", ["/c", "cmd", "/c", "npx", "x"], "npx", "node"),
    ],
)
def test_wrappers_are_peeled_and_mapped(command: str, args: list[str], expected: str, runtime: str) -> None:
    resolved = runtime_command(command, args)
    assert resolved == expected
    found = runtime_for(resolved)
    assert found is not None and found.name == runtime


def test_python_placeholder_is_this_interpreter() -> None:
    assert runtime_command("{python}", ["-m", "elftia_desktop.builtin_servers.clock"]) == sys.executable


def test_unknown_and_bare_wrappers_are_kept() -> None:
    assert runtime_command("/opt/servers/my-server", ["--stdio"]) == "/opt/servers/my-server"
    assert runtime_command("cmd", []) == "cmd"
    assert runtime_command("sh", ["script.sh"]) == "sh"
