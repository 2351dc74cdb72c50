"""Gateway benchmark: ``.venv/bin/python bench/bench_gateway.py``.

Measured in one run against the same test server (``tests/servers/basic.py``):
(a) ``call_tool`` round trip through the gateway against a direct SDK ``ClientSession`` on the same
    server, interleaved call by call: the gateway as an app runs it (``elftia-mcp serve`` as a
    subprocess over stdio, one more process hop) and in process (client and gateway joined by the
    SDK's memory streams, so only the gateway's own work is added);
(b) ``tools/list`` with a warm catalog for 50 servers / 600 tools (50 Streamable HTTP sessions on
    one server process), through the subprocess gateway and in process.
Goals (issue 12): (a) <= 1.3x and <= 1 ms added; (b) <= 5 ms. Results are printed and written to
the "## Gateway" section of ``bench/RESULTS.md``.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import mcp_types as types  # noqa: E402
from keyring.backends.fail import Keyring as NoKeyring  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from mcp.server import Server  # noqa: E402
from mcp.shared.memory import create_client_server_memory_streams  # noqa: E402

from bench.results import write_section  # noqa: E402
from elftia_desktop.connections.service import McpService  # noqa: E402
from elftia_desktop.core.catalog import ServerCatalog  # noqa: E402
from elftia_desktop.core.config_store import ConfigStore  # noqa: E402
from elftia_desktop.core.models import McpServerInput  # noqa: E402
from elftia_desktop.core.secrets import SecretVault  # noqa: E402
from elftia_desktop.gateway.core import Gateway  # noqa: E402
from elftia_desktop.gateway.scope import ScopeSource  # noqa: E402
from elftia_desktop.gateway.server import build_server  # noqa: E402
from tests.servers.serve_http import serve_http, server_command  # noqa: E402

CALLS = 400
LISTS = 300


def _catalog(folder: Path) -> ServerCatalog:
    vault = SecretVault(backend=NoKeyring(), fallback_path=folder / "secrets.json")
    return ServerCatalog(ConfigStore(folder / "mcp-config.json"), vault)


def _env(folder: Path) -> dict[str, str]:
    return dict(os.environ) | {
        "ELFTIA_DATA_DIR": str(folder),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "PYTHONPATH": str(REPO),
    }


@asynccontextmanager
async def subprocess_gateway(folder: Path) -> AsyncIterator[ClientSession]:
    """A client on ``elftia-mcp serve`` running as a subprocess on ``folder``."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "elftia_desktop.cli", "serve"], env=_env(folder))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


@asynccontextmanager
async def inprocess_gateway(folder: Path) -> AsyncIterator[ClientSession]:
    """A client on a gateway in this process (memory streams), with its own pool."""
    service = McpService(_catalog(folder), runtime_dir=folder / "runtime")
    gateway = Gateway(service, ScopeSource().current)
    server = build_server(gateway)
    async with create_client_server_memory_streams() as (client_streams, server_streams):
        task = asyncio.get_running_loop().create_task(
            server.run(server_streams[0], server_streams[1], server.create_initialization_options())
        )
        try:
            async with ClientSession(client_streams[0], client_streams[1]) as session:
                await session.initialize()
                yield session
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await gateway.close()


async def _interleaved(
    first: Callable[[], Awaitable[Any]], second: Callable[[], Awaitable[Any]], rounds: int
) -> tuple[float, float]:
    """Median seconds of ``first`` and ``second``, called alternately ``rounds`` times after a warm-up."""
    for _ in range(20):
        await first()
        await second()
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(rounds):
        for index, call in enumerate((first, second)):
            started = time.perf_counter()
            await call()
            times[index].append(time.perf_counter() - started)
    return statistics.median(times[0]), statistics.median(times[1])


async def bench_calls(folder: Path) -> dict[str, dict[str, float]]:
    """(a) ``echo`` through the gateway vs a direct session on the same server command."""
    command = server_command("basic")
    catalog = _catalog(folder)
    catalog.add(McpServerInput(name="echo", config={"command": command[0], "args": command[1:]}, is_trusted=True))
    direct_params = StdioServerParameters(command=command[0], args=command[1:])
    results: dict[str, dict[str, float]] = {}
    for label, opener in (("subprocess", subprocess_gateway), ("in process", inprocess_gateway)):
        async with (
            stdio_client(direct_params) as (read, write),
            ClientSession(read, write) as direct,
            opener(folder) as via,
        ):
            await direct.initialize()
            await direct.list_tools()
            await via.list_tools()
            gateway_s, direct_s = await _interleaved(
                lambda v=via: v.call_tool("echo__echo", {"text": "x"}),
                lambda: direct.call_tool("echo", {"text": "x"}),
                CALLS,
            )
        results[label] = {"gateway_ms": gateway_s * 1000, "direct_ms": direct_s * 1000}
    return results


@asynccontextmanager
async def plain_server(tools: list[types.Tool]) -> AsyncIterator[ClientSession]:
    """The baseline: a bare low-level SDK server in this process that lists ``tools`` (prebuilt)."""

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    server: Server[Any] = Server("plain", on_list_tools=list_tools)
    async with create_client_server_memory_streams() as (client_streams, server_streams):
        task = asyncio.get_running_loop().create_task(
            server.run(server_streams[0], server_streams[1], server.create_initialization_options())
        )
        try:
            async with ClientSession(client_streams[0], client_streams[1]) as session:
                await session.initialize()
                yield session
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


async def _median_list(session: ClientSession) -> float:
    times = []
    for _ in range(LISTS):
        started = time.perf_counter()
        await session.list_tools()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


async def raw_wire_list(folder: Path) -> float:
    """Median seconds from writing a ``tools/list`` line to the gateway's stdin to reading its whole answer.

    No client library parses the answer, so this is the gateway's own cost plus the pipe.
    """
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "elftia_desktop.cli", "serve",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        env=_env(folder), limit=64 * 1024 * 1024,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None

    async def send(message: dict[str, Any]) -> None:
        assert process.stdin is not None
        process.stdin.write(json.dumps(message).encode() + b"\n")
        await process.stdin.drain()

    info = {"name": "bench", "version": "0"}
    await send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": info}})  # fmt: skip
    await process.stdout.readline()
    await send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    times = []
    for index in range(1, LISTS + 2):
        started = time.perf_counter()
        await send({"jsonrpc": "2.0", "id": index, "method": "tools/list"})
        line = await process.stdout.readline()
        if index > 1:  # the first one starts the servers
            times.append(time.perf_counter() - started)
    assert len(json.loads(line)["result"]["tools"]) == 600
    process.stdin.close()
    await process.wait()
    return statistics.median(times)


async def bench_listing(folder: Path) -> dict[str, dict[str, float]]:
    """(b) warm ``tools/list`` of 50 servers / 600 tools; baseline: a bare SDK server with the same tools."""
    results: dict[str, dict[str, float]] = {}
    with serve_http("basic", "streamable-http") as url:
        catalog = _catalog(folder)
        for index in range(50):
            catalog.add(McpServerInput(name=f"http {index}", type="http", config={"url": url}, is_trusted=True))
        for label, opener in (("subprocess", subprocess_gateway), ("in process", inprocess_gateway)):
            async with opener(folder) as via:
                tools = (await via.list_tools()).tools  # cold: starts the 50 sessions
                results[label] = {"tools": len(tools), "median_ms": await _median_list(via) * 1000}
        results["subprocess, raw JSON-RPC on the pipe (no client parsing)"] = {
            "tools": len(tools),
            "median_ms": await raw_wire_list(folder) * 1000,
        }
        async with plain_server(tools) as plain:
            await plain.list_tools()
            results["bare SDK server, in process (baseline)"] = {
                "tools": len(tools),
                "median_ms": await _median_list(plain) * 1000,
            }
    return results


def report(calls: dict[str, dict[str, float]], listing: dict[str, dict[str, float]]) -> str:
    """The RESULTS.md table."""
    lines = [
        f"Direct: the SDK's ClientSession on `basic` over stdio; medians of {CALLS} interleaved calls, "
        f"{LISTS} warm lists, on a shared {os.cpu_count()}-core machine "
        f"(load average {os.getloadavg()[0]:.1f} at the end: other builds ran at the same time, so the call "
        "figures vary by a few ms from run to run).",
        "The Python client's own validation of 600 tools takes most of a client-side tools/list; the raw "
        "JSON-RPC row is the gateway's own answer time on its pipe.",
        "",
        "| measure | gateway | baseline | ratio | added | goal |",
        "|---|---|---|---|---|---|",
    ]
    for label, row in calls.items():
        ratio = row["gateway_ms"] / row["direct_ms"]
        added = row["gateway_ms"] - row["direct_ms"]
        met = "met" if ratio <= 1.3 and added <= 1.0 else "**not met**"
        lines.append(
            f"| (a) call_tool `echo`, gateway {label} | {row['gateway_ms']:.3f} ms | direct {row['direct_ms']:.3f} ms"
            f" | **{ratio:.2f}x** | {added:.3f} ms | <= 1.3x and <= 1 ms: {met} |"
        )
    baseline = listing.pop("bare SDK server, in process (baseline)")
    for label, row in listing.items():
        met = "met" if row["median_ms"] <= 5 else "**not met**"
        ratio = row["median_ms"] / baseline["median_ms"]
        lines.append(
            f"| (b) tools/list warm, 50 servers / {row['tools']:.0f} tools, gateway {label} |"
            f" **{row['median_ms']:.2f} ms** | bare SDK server in process {baseline['median_ms']:.2f} ms"
            f" | {ratio:.2f}x | | <= 5 ms: {met} |"
        )
    return "\n".join(lines)


async def main() -> None:
    with tempfile.TemporaryDirectory() as calls_dir, tempfile.TemporaryDirectory() as list_dir:
        os.environ["ELFTIA_DATA_DIR"] = calls_dir
        calls = await bench_calls(Path(calls_dir))
        os.environ["ELFTIA_DATA_DIR"] = list_dir
        listing = await bench_listing(Path(list_dir))
    body = report(calls, listing)
    print(body)
    write_section("Gateway", body, "bench/bench_gateway.py")


if __name__ == "__main__":
    asyncio.run(main())
