"""Connection pool benchmark: ``.venv/bin/python bench/bench_pool.py``.

Measured in one run against the same test servers (``tests/servers``):
(a) tool-call round trip through ``McpService.call_tool`` vs a bare SDK ``ClientSession.call_tool`` (handshake
era), and (a') on a 2026-07-28 connection vs the SDK's bare ``Client(mode="auto")``;
(b) ``list_all_active_server_tools`` with a warm cache for 50 servers (Streamable HTTP sessions);
(c) connecting 10 stdio servers through the pool (concurrently) vs one after another;
(d) resident memory of this process (and of the server processes) with 10 connected servers.
Results are printed and written to the "## Connection pool" section of ``bench/RESULTS.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from keyring.backends.fail import Keyring as NoKeyring  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

from elftia_desktop.application import servers  # noqa: E402
from elftia_desktop.connections.service import McpService  # noqa: E402
from elftia_desktop.core.catalog import ServerCatalog  # noqa: E402
from elftia_desktop.core.config_store import ConfigStore  # noqa: E402
from elftia_desktop.core.models import McpServerInput  # noqa: E402
from elftia_desktop.core.secrets import SecretVault  # noqa: E402
from tests.servers.serve_http import serve_http, server_command  # noqa: E402

CALLS = 400
WARM_LISTS = 2000
RESULTS = REPO / "bench" / "RESULTS.md"


def _service(folder: Path) -> McpService:
    vault = SecretVault(backend=NoKeyring(), fallback_path=folder / "secrets.json")
    return McpService(ServerCatalog(ConfigStore(folder / "mcp-config.json"), vault), runtime_dir=folder / "runtime")


def _stdio(name: str, active: bool = True, protocol: str = "auto") -> McpServerInput:
    command = server_command("basic")
    config = {"command": command[0], "args": command[1:], "protocol": protocol}
    return McpServerInput(name=name, config=config, is_trusted=True, is_active=active)


async def _add(service: McpService, server: McpServerInput) -> str:
    result = await servers.add(service, server)
    assert result.server is not None, result.error
    return result.server.id


async def bench_call(folder: Path, modern: bool, log_level: str | None = None) -> dict[str, float]:
    """(a) median round trip of ``echo``, pool vs the bare SDK, interleaved in rounds.

    ``modern``: both on 2026-07-28 (the pool in ``auto`` mode vs the SDK's ``Client(mode="auto")``);
    else both on the handshake (the pool pinned ``legacy`` vs a bare ``ClientSession``). ``log_level``: the bare
    ``Client`` opts in to log messages as the pool does (``info``), which costs the server time on every request.
    """
    service = _service(folder)
    sid = await _add(service, _stdio("echo", protocol="auto" if modern else "legacy"))
    command = server_command("basic")
    params = StdioServerParameters(command=command[0], args=command[1:])
    pool_times: list[float] = []
    bare_times: list[float] = []
    async with contextlib.AsyncExitStack() as stack:
        if modern:
            client = await stack.enter_async_context(Client(params, mode="auto", log_level=log_level))  # type: ignore[arg-type]
            assert client.protocol_version == "2026-07-28"
            call: Any = client.call_tool
        else:
            read, write = await stack.enter_async_context(stdio_client(params))
            session = await stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            await session.list_tools()
            call = session.call_tool
        for _ in range(20):  # warm up both
            await service.call_tool(sid, "echo", {"text": "x"})
            await call("echo", {"text": "x"})
        for _ in range(CALLS):
            started = time.perf_counter()
            await service.call_tool(sid, "echo", {"text": "x"})
            pool_times.append(time.perf_counter() - started)
            started = time.perf_counter()
            await call("echo", {"text": "x"})
            bare_times.append(time.perf_counter() - started)
    await service.cleanup()
    pool, bare = statistics.median(pool_times), statistics.median(bare_times)
    return {"pool_ms": pool * 1000, "bare_ms": bare * 1000, "ratio": pool / bare}


async def bench_warm_listing(folder: Path) -> dict[str, float]:
    """(b) ``list_all_active_server_tools`` with a warm cache for 50 servers."""
    service = _service(folder)
    with serve_http("basic", "streamable-http") as url:
        for index in range(50):
            server = McpServerInput(name=f"http {index}", type="http", config={"url": url}, is_trusted=True)
            await _add(service, server)
        cold = await service.list_all_active_server_tools()
        assert not cold.errors, cold.errors
        times = []
        for _ in range(WARM_LISTS):
            started = time.perf_counter()
            listing = await service.list_all_active_server_tools()
            times.append(time.perf_counter() - started)
        await service.cleanup()
    return {"servers": 50, "tools": len(listing.tools), "median_ms": statistics.median(times) * 1000}


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


async def bench_connect(folder: Path) -> dict[str, float]:
    """(c) connecting 10 stdio servers: concurrently through the pool vs one after another; (d) RSS."""
    service = _service(folder)
    ids = [await _add(service, _stdio(f"stdio {i}", active=False)) for i in range(10)]
    started = time.perf_counter()
    for sid in ids:
        await service.init_client(sid)
    sequential = time.perf_counter() - started
    for sid in ids:
        await service.disconnect(sid)
    started = time.perf_counter()
    await asyncio.gather(*(service.init_client(sid) for sid in ids))
    pooled = time.perf_counter() - started
    own = _rss_kb(os.getpid())
    server_pids = [(await service.call_tool(sid, "pid", {})).structured_content["result"] for sid in ids]  # type: ignore[index]
    servers = sum(_rss_kb(pid) for pid in server_pids)
    await service.cleanup()
    return {
        "sequential_s": sequential,
        "pool_s": pooled,
        "speedup": sequential / pooled,
        "rss_mb": own / 1024,
        "servers_rss_mb": servers / 1024,
    }


def write_results(section: str) -> None:
    """Replace (or add) the "## Connection pool" section of RESULTS.md."""
    text = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else "# Benchmark results\n"
    start = text.find("## Connection pool")
    if start == -1:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        end = text.find("\n## ", start + 1)
        text = text[:start] + section + (text[end + 1 :] if end != -1 else "")
    RESULTS.write_text(text, encoding="utf-8")


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        os.environ["ELFTIA_DATA_DIR"] = str(base)
        (base / "a").mkdir(), (base / "m").mkdir(), (base / "b").mkdir(), (base / "c").mkdir()
        call = await bench_call(base / "a", modern=False)
        modern = await bench_call(base / "m", modern=True)
        (base / "l").mkdir()
        logged = await bench_call(base / "l", modern=True, log_level="info")
        warm = await bench_warm_listing(base / "b")
        connect = await bench_connect(base / "c")
    lines = [
        "## Connection pool",
        "",
        f"`.venv/bin/python bench/bench_pool.py` on {platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, {time.strftime('%Y-%m-%d')}.",
        "",
        "| measure | result | target |",
        "|---|---|---|",
        f"| (a) call_tool round trip, median of {CALLS} (stdio `echo`, handshake era) | pool {call['pool_ms']:.3f} ms, "
        f"bare ClientSession {call['bare_ms']:.3f} ms, ratio **{call['ratio']:.3f}** | <= 1.10 |",
        f"| (a') call_tool round trip, median of {CALLS} (stdio `echo`, 2026-07-28) | pool {modern['pool_ms']:.3f} ms, "
        f"bare SDK `Client` {modern['bare_ms']:.3f} ms, ratio **{modern['ratio']:.3f}** | <= 1.10 |",
        f"| (a'') same, the bare `Client` also opting in to log messages (`log_level='info'`, as the pool does) | "
        f"pool {logged['pool_ms']:.3f} ms, bare {logged['bare_ms']:.3f} ms, ratio **{logged['ratio']:.3f}** | |",
        f"| (b) list_all_active_server_tools, warm cache, {warm['servers']} servers / {warm['tools']} tools "
        f"(median of {WARM_LISTS}) | **{warm['median_ms']:.3f} ms** | < 1 ms |",
        f"| (c) connect 10 stdio servers | one after another {connect['sequential_s']:.2f} s, "
        f"pool (concurrent) {connect['pool_s']:.2f} s, speed-up **{connect['speedup']:.2f}x** | |",
        f"| (d) resident memory with 10 connected servers | this process **{connect['rss_mb']:.0f} MB**; "
        f"the 10 server processes {connect['servers_rss_mb']:.0f} MB together | |",
        "",
    ]
    section = "\n".join(lines)
    print(section)
    write_results(section)


if __name__ == "__main__":
    asyncio.run(main())
