"""Capture ``tools/list`` results of real MCP servers into ``tests/tools/data/`` (run by hand, needs the network).

Usage: ``.venv/bin/python tests/tools/capture_tool_lists.py [NAME ...]`` (no name: every server).
Each server is a published package at a pinned version: npm packages run with ``npx -y pkg@version``,
PyPI packages are installed into their own virtual environment under the system's temp folder and
run from there. Credentials are dummies: the servers list their tools without calling their
service. Each file records the package (registry, name, version) it was captured from; the tests
only read the saved JSON.

Tried and left out (they did not start here at their latest version, 2026-12-01): npm
@modelcontextprotocol/server-puppeteer and @wonderwhy-er/desktop-commander (exit at start),
@stripe/mcp and @supabase/mcp-server-supabase (proxy to their hosted servers), @heroku/mcp-server
(a missing SDK module); PyPI mcp-server-sqlite, chroma-mcp, mcp-server-qdrant and zotero-mcp
(incompatible with the mcp and pydantic releases their unpinned dependencies resolve to).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from anyio.streams.buffered import BufferedByteReceiveStream
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

DATA = Path(__file__).parent / "data"
VENVS = Path(tempfile.gettempdir()) / "elftia-capture-venvs"
SCRATCH = Path(tempfile.gettempdir()) / "elftia-capture-scratch"


@dataclass(frozen=True)
class Server:
    """One published MCP server: where it comes from and how it is started."""

    registry: str
    """``npm`` or ``pypi``."""
    package: str
    version: str
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    entry: str | None = None
    """The executable to run: a PyPI package's console script, or an npm package's bin when not the default."""
    raw: bool = False
    """Read tools/list as plain JSON-RPC: the SDK's types reject this server's list (an input schema without
    ``type``), and such a list is what the converters must handle."""


_DUMMY = "elftia-capture-dummy"
SERVERS: dict[str, Server] = {
    # npm
    "everything": Server("npm", "@modelcontextprotocol/server-everything", "2026.8.31"),
    "filesystem": Server("npm", "@modelcontextprotocol/server-filesystem", "2026.8.31", [str(SCRATCH)]),
    "memory": Server("npm", "@modelcontextprotocol/server-memory", "2026.8.31"),
    "sequential-thinking": Server("npm", "@modelcontextprotocol/server-sequential-thinking", "2026.8.31"),
    "playwright": Server("npm", "@playwright/mcp", "0.0.83"),
    "notion": Server("npm", "@notionhq/notion-mcp-server", "2.5.2", env={"NOTION_TOKEN": _DUMMY}),
    "chrome-devtools": Server("npm", "chrome-devtools-mcp", "1.11.0"),
    "mongodb": Server("npm", "mongodb-mcp-server", "3.0.4"),
    "firecrawl": Server("npm", "firecrawl-mcp", "3.26.0", env={"FIRECRAWL_API_KEY": _DUMMY}),
    "github": Server(
        "npm", "@modelcontextprotocol/server-github", "2025.4.8", env={"GITHUB_PERSONAL_ACCESS_TOKEN": _DUMMY}
    ),
    "gitlab": Server(
        "npm",
        "@modelcontextprotocol/server-gitlab",
        "2025.4.25",
        env={"GITLAB_PERSONAL_ACCESS_TOKEN": _DUMMY},
        raw=True,
    ),
    "slack": Server(
        "npm",
        "@modelcontextprotocol/server-slack",
        "2025.4.25",
        env={"SLACK_BOT_TOKEN": _DUMMY, "SLACK_TEAM_ID": _DUMMY},
    ),
    "executeautomation-playwright": Server("npm", "@executeautomation/playwright-mcp-server", "1.0.12"),
    "kubernetes": Server("npm", "mcp-server-kubernetes", "4.1.7"),
    "context7": Server("npm", "@upstash/context7-mcp", "4.1.1"),
    "tavily": Server("npm", "tavily-mcp", "0.2.22", env={"TAVILY_API_KEY": _DUMMY}),
    "git-cyanheads": Server("npm", "@cyanheads/git-mcp-server", "2.15.3"),
    "google-maps": Server(
        "npm", "@modelcontextprotocol/server-google-maps", "0.6.2", env={"GOOGLE_MAPS_API_KEY": _DUMMY}
    ),
    "brave-search": Server("npm", "@modelcontextprotocol/server-brave-search", "0.6.2", env={"BRAVE_API_KEY": _DUMMY}),
    "hevy": Server("npm", "hevy-mcp", "6.1.13", env={"HEVY_API_KEY": _DUMMY}),
    "exa": Server("npm", "exa-mcp-server", "3.4.1", env={"EXA_API_KEY": _DUMMY}),
    "sentry": Server("npm", "@sentry/mcp-server", "0.39.0", ["--access-token=" + _DUMMY]),
    "todoist": Server("npm", "@doist/todoist-mcp", "11.0.0", env={"TODOIST_API_KEY": _DUMMY}),
    "octocode": Server("npm", "octocode-mcp", "19.1.0", env={"GITHUB_TOKEN": _DUMMY}),
    "task-master": Server("npm", "task-master-ai", "0.43.1", env={"TASK_MASTER_TOOLS": "all"}, entry="task-master-ai"),
    # PyPI
    "time": Server("pypi", "mcp-server-time", "2026.10.19", entry="mcp-server-time"),
    "fetch": Server("pypi", "mcp-server-fetch", "2026.10.24", entry="mcp-server-fetch"),
    "git": Server("pypi", "mcp-server-git", "2026.10.19", entry="mcp-server-git"),
    "atlassian": Server(
        "pypi",
        "mcp-atlassian",
        "0.23.1",
        env={
            "JIRA_URL": "https://example.atlassian.net",
            "JIRA_USERNAME": "capture@example.com",
            "JIRA_API_TOKEN": _DUMMY,
            "CONFLUENCE_URL": "https://example.atlassian.net/wiki",
            "CONFLUENCE_USERNAME": "capture@example.com",
            "CONFLUENCE_API_TOKEN": _DUMMY,
        },
        entry="mcp-atlassian",
    ),
    "excel": Server("pypi", "excel-mcp-server", "2.2.2", ["stdio"], entry="excel-mcp-server"),
    "word": Server("pypi", "office-word-mcp-server", "1.1.11", entry="word_mcp_server"),
    "aws-documentation": Server(
        "pypi", "awslabs.aws-documentation-mcp-server", "1.2.3", entry="awslabs.aws-documentation-mcp-server"
    ),
    "arxiv": Server("pypi", "arxiv-mcp-server", "0.8.2", entry="arxiv-mcp-server"),
    "duckduckgo": Server("pypi", "duckduckgo-mcp-server", "0.7.0", entry="duckduckgo-mcp-server"),
    "clickhouse": Server(
        "pypi", "mcp-clickhouse", "0.7.0", env={"CLICKHOUSE_HOST": "localhost"}, entry="mcp-clickhouse"
    ),
    "jupyter": Server("pypi", "jupyter-mcp-server", "2.2.4", entry="jupyter-mcp-server"),
}


def install(name: str, server: Server) -> tuple[str, list[str]]:
    """The command that starts ``server`` (a PyPI package is installed into its own venv first)."""
    if server.registry == "npm":
        spec = f"{server.package}@{server.version}"
        if server.entry is not None:
            return "npx", ["-y", f"--package={spec}", server.entry, *server.args]
        return "npx", ["-y", spec, *server.args]
    venv = VENVS / name
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", f"{server.package}=={server.version}"]
    subprocess.run(pip, check=True)
    return str(venv / "bin" / (server.entry or server.package)), server.args


async def capture(name: str, server: Server) -> dict[str, Any]:
    """The raw JSON of one server's tools/list, all pages, with the package it came from."""
    command, args = install(name, server)
    SCRATCH.mkdir(exist_ok=True)
    env = {**_base_env(), **server.env}
    tools = await (raw_tools(command, args, env) if server.raw else sdk_tools(command, args, env))
    package = {"registry": server.registry, "name": server.package, "version": server.version}
    shown = [Path(command).name if server.registry == "pypi" else command, *args]
    return {"server": name, "package": package, "command": shown, "tools": tools}


async def sdk_tools(command: str, args: list[str], env: dict[str, str]) -> list[dict[str, Any]]:
    """Every page of tools/list through the SDK's client session."""
    server_params = StdioServerParameters(command=command, args=args, env=env, cwd=str(SCRATCH))
    tools: list[dict[str, Any]] = []
    async with stdio_client(server_params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        cursor: str | None = None
        while True:
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            result = await session.list_tools(params=params)
            tools.extend(t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in result.tools)
            cursor = result.next_cursor
            if not cursor:
                return tools


async def raw_tools(command: str, args: list[str], env: dict[str, str]) -> list[dict[str, Any]]:
    """Every page of tools/list as plain JSON-RPC over the server's stdin/stdout, nothing validated."""
    process = await anyio.open_process([command, *args], env=env, cwd=str(SCRATCH), stderr=None)
    assert process.stdin is not None and process.stdout is not None
    lines = BufferedByteReceiveStream(process.stdout)
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "capture", "version": "1"}}
    tools: list[dict[str, Any]] = []
    try:
        await _request(process.stdin, lines, 1, "initialize", init)
        await process.stdin.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        cursor, request_id = None, 2
        while True:
            result = await _request(
                process.stdin, lines, request_id, "tools/list", {"cursor": cursor} if cursor else {}
            )
            tools.extend(result["tools"])
            cursor, request_id = result.get("nextCursor"), request_id + 1
            if not cursor:
                return tools
    finally:
        process.kill()
        await process.aclose()


async def _request(
    stdin: Any, lines: BufferedByteReceiveStream, request_id: int, method: str, params: dict[str, Any]
) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    await stdin.send((json.dumps(message) + "\n").encode())
    while True:
        line = await lines.receive_until(b"\n", 64 * 1024 * 1024)
        reply = json.loads(line) if line.strip().startswith(b"{") else {}
        if reply.get("id") == request_id:
            if "error" in reply:
                raise RuntimeError(f"{method}: {reply['error']}")
            result: dict[str, Any] = reply["result"]
            return result


def _base_env() -> dict[str, str]:
    import os

    keep = ("PATH", "HOME", "LANG", "TMPDIR", "npm_config_cache")
    return {k: os.environ[k] for k in keep if k in os.environ}


async def main(names: list[str]) -> None:
    """Capture the named servers (default: all); a failing one is reported and skipped."""
    for name in names or list(SERVERS):
        try:
            with anyio.fail_after(600):
                data = await capture(name, SERVERS[name])
        except Exception as exc:  # report and go on with the next server
            print(f"{name}: failed: {exc!r}", file=sys.stderr, flush=True)
            continue
        if not data["tools"]:
            print(f"{name}: no tools; not saved", file=sys.stderr, flush=True)
            continue
        (DATA / f"{name}.json").write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"{name}: {len(data['tools'])} tools", flush=True)


if __name__ == "__main__":
    anyio.run(main, sys.argv[1:])
