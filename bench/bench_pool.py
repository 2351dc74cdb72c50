"""Connection pool benchmark: ``.venv/bin/python bench/bench_pool.py``.

Measured in one run against the same test servers (``tests/servers``):
(a) tool-call round trip through ``McpService.call_tool`` vs a bare SDK ``ClientSession.call_tool`` (handshake
era), and (a') on a 2026-07-28 connection vs the SDK's bare ``Client(mode="auto")``, (a'') with what the
pool's opt-in to log messages costs a bare ``Client`` (calls interleaved one by one, in rounds);
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

CALLS = 1000
ROUNDS = 5
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


async def bench_call(folder: Path, modern: bool) -> dict[str, Any]:
    """(a) round trip of ``echo``, pool vs the bare SDK, interleaved call by call in ``ROUNDS`` rounds.

    ``modern``: both on 2026-07-28 (the pool in ``auto`` mode vs the SDK's ``Client(mode="auto")``, and a
    second bare ``Client`` that opts in to log messages with ``log_level='info'`` as the pool does);
    else both on the handshake (the pool pinned ``legacy`` vs a bare ``ClientSession``). Each round's
    ratio is its medians' ratio; the result is the median round (the machine is shared: rounds differ).
    """
    service = _service(folder)
    sid = await _add(service, _stdio("echo", protocol="auto" if modern else "legacy"))
    command = server_command("basic")
    params = StdioServerParameters(command=command[0], args=command[1:])
    calls: dict[str, Any] = {"pool": lambda: service.call_tool(sid, "echo", {"text": "x"})}
    async with contextlib.AsyncExitStack() as stack:
        if modern:
            for name, level in (("bare", None), ("bare_logged", "info")):
                client = await stack.enter_async_context(Client(params, mode="auto", log_level=level))  # type: ignore[arg-type]
                assert client.protocol_version == "2026-07-28"
                calls[name] = lambda client=client: client.call_tool("echo", {"text": "x"})
        else:
            read, write = await stack.enter_async_context(stdio_client(params))
            session = await stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            await session.list_tools()
            calls["bare"] = lambda: session.call_tool("echo", {"text": "x"})
        for _ in range(20):  # warm up all
            for call in calls.values():
                await call()
        rounds = [await _round(calls) for _ in range(ROUNDS)]
    await service.cleanup()
    return _summary(rounds)


async def _round(calls: dict[str, Any]) -> dict[str, float]:
    """One round: each call ``CALLS // ROUNDS`` times, interleaved (who goes first rotates); the medians in ms."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    order = list(calls.items())
    for index in range(CALLS // ROUNDS):
        shift = index % len(order)
        for name, call in order[shift:] + order[:shift]:
            started = time.perf_counter()
            await call()
            times[name].append(time.perf_counter() - started)
    return {name: statistics.median(values) * 1000 for name, values in times.items()}


def _summary(rounds: list[dict[str, float]]) -> dict[str, Any]:
    """The median round by the pool/bare ratio, with every round's ratios."""
    for item in rounds:
        item["ratio"] = item["pool"] / item["bare"]
        if "bare_logged" in item:
            item["logged_ratio"] = item["bare_logged"] / item["bare"]
    ordered = sorted(rounds, key=lambda item: item["ratio"])
    middle = dict(ordered[len(ordered) // 2])
    middle["ratios"] = [round(item["ratio"], 3) for item in rounds]
    middle["logged_ratios"] = [round(item.get("logged_ratio", 0.0), 3) for item in rounds]
    return middle


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
        f"| (a) call_tool round trip, stdio `echo`, handshake era ({ROUNDS} rounds of {CALLS // ROUNDS}, median) | "
        f"pool {call['pool']:.3f} ms, bare ClientSession {call['bare']:.3f} ms, ratio **{call['ratio']:.3f}** "
        f"(rounds: {', '.join(map(str, call['ratios']))}) | <= 1.10 |",
        f"| (a') same on 2026-07-28 | pool {modern['pool']:.3f} ms, bare SDK `Client` {modern['bare']:.3f} ms, "
        f"ratio **{modern['ratio']:.3f}** (rounds: {', '.join(map(str, modern['ratios']))}) | <= 1.10 |",
        f"| (a'') what the log opt-in costs: a bare `Client` with `log_level='info'` (as the pool) / without | "
        f"{modern['bare_logged']:.3f} ms / {modern['bare']:.3f} ms, ratio **{modern['logged_ratio']:.3f}** "
        f"(rounds: {', '.join(map(str, modern['logged_ratios']))}) | |",
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
