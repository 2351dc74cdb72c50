"""What each process of the stdio gateway path costs per call: ``.venv/bin/python bench/bench_hop_cpu.py [--calls N]``.

The round trip of ``bench_host.py`` (d) split by process: one SDK client calls ``echo`` of the same
stdio test server (``tests/servers/basic.py``) through ``elftia-mcp serve`` attached to the pool
host (app -> forwarder -> host -> server), to a server the host speaks the 2025-11-25 handshake to
(``protocol: legacy``), and on direct sessions (handshake, and 2026-07-28 via ``server/discover``).
Each path runs its ``--calls`` calls in a block (after 30 warm-up calls), and the CPU time (user +
system, from ``/proc/<pid>/stat``, so Linux only) that each process used in the block is divided
by the calls: the app (this process), the forwarder, the host and the server. Wall times here are
not interleaved (``bench_host.py`` (d) gives the ratio); the CPU figures are what the machine's
load changes least. ``--write`` stores the table as the section "Stdio gateway: CPU per call".
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.bench_host import CLI, env_for  # noqa: E402
from bench.results import write_section  # noqa: E402
from tests.gateway.gateway_helpers import add_stdio, open_catalog, processes_with_env  # noqa: E402
from tests.servers.serve_http import server_command  # noqa: E402

WARMUP = 30
TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
PATHS = {
    "gateway": "app -> `serve` -> host -> server (2026-07-28)",
    "gateway-legacy": "the same, host to server on the 2025-11-25 handshake",
    "direct": "direct SDK session (handshake)",
    "direct-2026": "direct SDK session (2026-07-28)",
}
ROLES = ("app", "forwarder", "host", "server")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of ``pid`` so far (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


def parent_of(pid: int) -> int:
    """The parent pid of ``pid`` (0 when it is gone)."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except OSError:
        return 0


def command_of(pid: int) -> str:
    """The command line of ``pid``, space-separated."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def roles(data: Path) -> dict[str, list[int]]:
    """The forwarder, host and server processes of the run (the app is this process)."""
    own = [pid for pid in processes_with_env(f"ELFTIA_DATA_DIR={data}\0") if pid != os.getpid()]
    found: dict[str, list[int]] = {"app": [os.getpid()], "forwarder": [], "host": [], "server": []}
    for pid in own:
        command = command_of(pid)
        if " serve" in command:
            found["forwarder"].append(pid)
        elif "daemon run" in command:
            found["host"].append(pid)
    parents = (*found["host"], os.getpid())
    every = [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()]
    found["server"] = [pid for pid in every if parent_of(pid) in parents and "basic.py" in command_of(pid)]
    return found


async def measure(session: ClientSession, tool: str, calls: int, pids: dict[str, list[int]]) -> dict[str, float]:
    """Median wall ms of ``calls`` calls, and CPU microseconds per call of each role's processes."""
    for _ in range(WARMUP):
        await session.call_tool(tool, {"text": "hi"})
    every = [pid for group in pids.values() for pid in group if pid != os.getpid()]
    before = {pid: cpu_seconds(pid) for pid in every}
    own = time.process_time()
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        await session.call_tool(tool, {"text": "hi"})
        times.append(time.perf_counter() - started)
    used = {pid: cpu_seconds(pid) - before[pid] for pid in every} | {os.getpid(): time.process_time() - own}
    result = {"wall": statistics.median(times) * 1000}
    for role, group in pids.items():
        result[role] = sum(used.get(pid, 0.0) for pid in group) / calls * 1e6
    return result


async def run(base: Path, calls: int) -> dict[str, dict[str, float]]:
    """Every path of :data:`PATHS`, one block each."""
    data, sockets = base / "d", base / "sockets"
    sockets.mkdir(parents=True, mode=0o700)
    catalog = open_catalog(data)
    add_stdio(catalog, "basic", "basic")
    add_stdio(catalog, "legacy", "basic", config={"protocol": "legacy"})
    command = server_command("basic")
    env = env_for(data, sockets)
    direct = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    gateway = StdioServerParameters(command=sys.executable, args=[*CLI[1:], "serve"], env=env)
    results: dict[str, dict[str, float]] = {}
    async with AsyncExitStack() as stack:
        sessions: dict[str, Any] = {}
        for label, params in (("gateway", gateway), ("direct", direct), ("direct-2026", direct)):
            read, write = await stack.enter_async_context(stdio_client(params))
            sessions[label] = await stack.enter_async_context(ClientSession(read, write))
            await (sessions[label].discover() if label == "direct-2026" else sessions[label].initialize())
        sessions["gateway-legacy"] = sessions["gateway"]
        tools = {"gateway": "basic__echo", "gateway-legacy": "legacy__echo", "direct": "echo", "direct-2026": "echo"}
        await sessions["gateway"].call_tool("legacy__echo", {"text": "hi"})  # both servers run
        every = roles(data)
        for label in PATHS:
            pids = every if label.startswith("gateway") else {"app": every["app"], "server": every["server"]}
            results[label] = await measure(sessions[label], tools[label], calls, pids)
    return results


def report(results: dict[str, dict[str, float]], calls: int) -> str:
    """The table: wall ms and CPU microseconds per call of each process, and the sum."""
    head = "| path | wall ms (median) | app us | forwarder us | host us | server us | CPU us in all |"
    lines = [head, "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for label, title in PATHS.items():
        row = results[label]
        cells = [f"{row.get(role, 0.0):.0f}" for role in ROLES]
        total = sum(row.get(role, 0.0) for role in ROLES)
        lines.append(f"| {title} | {row['wall']:.3f} | " + " | ".join(cells) + f" | {total:.0f} |")
    load = os.getloadavg()[0]
    return (
        f"{calls} calls of `echo` per path after {WARMUP} warm-up calls; CPU time per call of each process "
        f"(user + system); the server column adds up every test server (only the one called works). "
        f"Load average at the end {load:.1f} on {os.cpu_count()} CPUs.\n\n" + "\n".join(lines)
    )


def main() -> None:
    """Run once and print (``--write``: also store) the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--write", action="store_true", help="write the section of bench/RESULTS.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bhc-") as folder:
        base = Path(folder)
        try:
            results = anyio.run(run, base, args.calls)
        finally:
            env = env_for(base / "d", base / "sockets")
            subprocess.run([*CLI, "daemon", "stop"], env=env, capture_output=True, timeout=60)
    text = report(results, args.calls)
    print(text)
    if args.write:
        write_section("Stdio gateway: CPU per call", text, "bench/bench_hop_cpu.py --write")


if __name__ == "__main__":
    main()
