"""Pool host benchmark: ``.venv/bin/python bench/bench_host.py [--rounds N] [--servers N] [--write]``.

Measured in one run, on test servers written with the SDK (``tests/servers``):

(a) a warm ``elftia-mcp call`` (whole process; the host runs and the server is connected) against a
    bare SDK script that spawns the same server, initializes, calls ``echo`` and closes; they
    alternate, median of ``--rounds``; goal <= 0.25x;
(b) ``elftia-mcp serve`` from spawn to its ``initialize`` answer (host running) against a bare SDK
    server (``MCPServer`` with one tool) from spawn to its answer, alternating, median; goal <= 1.0x.
    The cold case (no host runs: the gateway answers itself while the host starts) has the same goal;
    ``--no-daemon`` is shown too;
(c) 3 apps x ``--servers`` servers: processes and resident memory of everything of the data folder
    after each app listed its tools, with the host (3 shims, 1 host, 1 process per server) and
    without (3 gateways with their own servers);
(d) a tool call round trip, app -> gateway -> host -> server, against a direct SDK session on the
    same server, interleaved, median of ``--calls``; goal <= 1.6x (one path: the SDK's sessions carry
    every call). The app speaks the handshake
    (2025-11-25) as the apps do, and so does the direct session; the host speaks 2026-07-28 to the
    server, which costs the server more per request: the table also gives the ratio against a direct
    session on 2026-07-28, and the round trip to a server the host speaks the handshake to.
    ``--trip-runs N`` repeats it N times (fresh processes each time) and reports every run with the
    load average then; the table shows the run with the median ratio.

``--only a,d`` runs only those measures (the table shows the others as not measured).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.results import write_section  # noqa: E402
from tests.gateway.gateway_helpers import add_stdio, open_catalog, processes_with_env  # noqa: E402
from tests.servers.serve_http import server_command  # noqa: E402

BARE_CALL = """
import sys, anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

async def main():
    params = StdioServerParameters(command=sys.argv[1], args=sys.argv[2:])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("echo", {"text": "hi"})
        print(result.content[0].text)

anyio.run(main)
"""
BARE_SERVER = """
from mcp.server.mcpserver import MCPServer
mcp = MCPServer("bare")

@mcp.tool()
def echo(text: str) -> str:
    return text

mcp.run()
"""
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}
CLI = [sys.executable, "-m", "elftia_desktop.cli"]


def env_for(data: Path, sockets: Path) -> dict[str, str]:
    """An Elftia process on data folder ``data`` with host sockets in ``sockets``."""
    return os.environ | {
        "PYTHONPATH": str(REPO),
        "ELFTIA_DATA_DIR": str(data),
        "ELFTIA_HOST_DIR": str(sockets),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }


def timed(argv: list[str], env: dict[str, str], expect: str = "hi") -> float:
    """Wall seconds of one whole process; it must print ``expect``."""
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=180, cwd=REPO)
    elapsed = time.perf_counter() - started
    assert done.returncode == 0 and expect in done.stdout, done.stderr[-2000:]
    return elapsed


def time_to_initialize(argv: list[str], env: dict[str, str]) -> float:
    """Seconds from spawning a stdio server until its answer to ``initialize``; then it is closed."""
    started = time.perf_counter()
    process = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=REPO)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    process.stdin.flush()
    answer = process.stdout.readline()
    elapsed = time.perf_counter() - started
    assert b'"result"' in answer, answer
    process.stdin.close()
    process.wait(timeout=60)
    return elapsed


def alternate(rounds: int, runs: dict[str, Callable[[], float]]) -> dict[str, float]:
    """Medians of each run, alternating them round after round."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            times[name].append(run())
    return {name: statistics.median(values) for name, values in times.items()}


def bench_call(base: Path, rounds: int) -> dict[str, float]:
    """(a) the warm attached call against the bare script that spawns the server."""
    data, sockets = base / "a", base / "sockets"
    add_stdio(open_catalog(data), "basic", "basic")
    env = env_for(data, sockets)
    call = [*CLI, "call", "basic", "echo", "--args", '{"text": "hi"}']
    timed(call, env)  # starts the host and the server: the calls below are warm
    script = base / "bare_call.py"
    script.write_text(BARE_CALL, encoding="utf-8")
    bare = [sys.executable, str(script), *server_command("basic")]
    return alternate(rounds, {"attached": lambda: timed(call, env), "bare": lambda: timed(bare, dict(os.environ))})


def bench_initialize(base: Path, rounds: int) -> dict[str, float]:
    """(b) the gateway's answer to initialize against a bare SDK server's."""
    data, sockets = base / "b", base / "sockets"
    add_stdio(open_catalog(data), "basic", "basic")
    env = env_for(data, sockets)
    script = base / "bare_server.py"
    script.write_text(BARE_SERVER, encoding="utf-8")
    serve = [*CLI, "serve"]

    def cold() -> float:
        """No host runs: the gateway answers while the host it starts is still coming up."""
        subprocess.run([*CLI, "daemon", "stop"], env=env, capture_output=True, timeout=60, check=True)
        elapsed = time_to_initialize(serve, env)
        subprocess.run([*CLI, "daemon", "start"], env=env, capture_output=True, timeout=120, check=True)
        return elapsed  # (the host is up again for the warm runs)

    return alternate(
        rounds,
        {
            "attached": lambda: time_to_initialize(serve, env),
            "cold": cold,
            "bare": lambda: time_to_initialize([sys.executable, str(script)], dict(os.environ)),
            "no-daemon": lambda: time_to_initialize([*serve, "--no-daemon"], env),
        },
    )


def footprint(marker: str) -> tuple[int, float]:
    """How many live processes carry ``marker`` in their environment, and their resident MB together."""
    count, rss_kb = 0, 0
    for pid in processes_with_env(marker):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if fields.get("State", "").strip().startswith("Z"):
            continue
        count += 1
        rss_kb += int(fields.get("VmRSS", "0 kB").split()[0])
    return count, rss_kb / 1024


async def apps_footprint(data: Path, sockets: Path, apps: int, extra: list[str]) -> tuple[int, float]:
    """(c) ``apps`` gateways each listing their tools; then the footprint of the data folder."""
    env = env_for(data, sockets)
    async with AsyncExitStack() as stack:
        for _ in range(apps):
            params = StdioServerParameters(command=sys.executable, args=[*CLI[1:], "serve", *extra], env=env)
            read, write = await stack.enter_async_context(stdio_client(params))
            session = await stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            await session.list_tools()
        await anyio.sleep(1.0)
        return footprint(f"ELFTIA_DATA_DIR={data}\0")


def bench_memory(base: Path, servers: int, apps: int = 3) -> dict[str, tuple[int, float]]:
    """(c) with the host and without it."""
    sockets = base / "sockets"
    results = {}
    for label, extra in (("without", ["--no-daemon"]), ("with", [])):
        data = base / f"c-{label}"
        catalog = open_catalog(data)
        for index in range(servers):
            add_stdio(catalog, f"s{index}", "basic")
        results[label] = anyio.run(apps_footprint, data, sockets, apps, extra)
        subprocess.run([*CLI, "daemon", "stop"], env=env_for(data, sockets), capture_output=True, timeout=60)
    return results


async def round_trips(base: Path, calls: int) -> dict[str, float]:
    """(d) interleaved echo calls through the attached gateway and on direct sessions (both eras)."""
    data, sockets = base / "d", base / "sockets"
    catalog = open_catalog(data)
    add_stdio(catalog, "basic", "basic")
    add_stdio(catalog, "basic-legacy", "basic", config={"protocol": "legacy"})
    command = server_command("basic")
    env = env_for(data, sockets)
    gateway = StdioServerParameters(command=sys.executable, args=[*CLI[1:], "serve"], env=env)
    alone = StdioServerParameters(command=sys.executable, args=[*CLI[1:], "serve", "--no-daemon"], env=env)
    direct = StdioServerParameters(command=command[0], args=command[1:])
    async with AsyncExitStack() as stack:
        sessions: dict[str, Any] = {}
        for label, params in (("gateway", gateway), ("no-daemon", alone), ("direct", direct), ("direct-2026", direct)):
            read, write = await stack.enter_async_context(stdio_client(params))
            sessions[label] = await stack.enter_async_context(ClientSession(read, write))
            await (sessions[label].discover() if label == "direct-2026" else sessions[label].initialize())
        sessions["gateway-legacy"] = sessions["gateway"]
        names = dict.fromkeys(sessions, "echo") | {
            "gateway": "basic__echo",
            "no-daemon": "basic__echo",
            "gateway-legacy": "basic-legacy__echo",
        }
        times: dict[str, list[float]] = {label: [] for label in names}
        for index in range(calls + 20):
            for label, session in sessions.items():
                started = time.perf_counter()
                await session.call_tool(names[label], {"text": "hi"})
                if index >= 20:  # warm-up
                    times[label].append(time.perf_counter() - started)
    return {label: statistics.median(values) * 1000 for label, values in times.items()}


def trip_runs(base: Path, calls: int, runs: int) -> tuple[dict[str, float], list[str]]:
    """(d) ``runs`` times: the run with the median gateway ratio, and one line per run with its load average."""
    results: list[tuple[dict[str, float], float]] = []
    for index in range(runs):
        folder = base / f"trips-{index}"
        (folder / "sockets").mkdir(parents=True, mode=0o700)
        try:
            results.append((anyio.run(round_trips, folder, calls), os.getloadavg()[0]))
        finally:
            subprocess.run([*CLI, "daemon", "stop"], env=env_for(folder / "d", folder / "sockets"), capture_output=True)
    lines = [
        f"run {n + 1}: gateway {t['gateway']:.3f} ms ({t['gateway'] / t['direct']:.2f}x), `--no-daemon` "
        f"{t['no-daemon']:.3f} ms ({t['no-daemon'] / t['direct']:.2f}x), direct {t['direct']:.3f} ms, direct on "
        f"2026-07-28 {t['direct-2026']:.3f} ms (gateway {t['gateway'] / t['direct-2026']:.2f}x of it), gateway to a "
        f"handshake-era server {t['gateway-legacy']:.3f} ms ({t['gateway-legacy'] / t['direct']:.2f}x); load {load:.1f}"
        for n, (t, load) in enumerate(results)
    ]
    ranked = sorted((t for t, _load in results), key=lambda t: t["gateway"] / t["direct"])
    return ranked[len(ranked) // 2], lines


NAN = float("nan")


def report(
    calls: dict[str, float], init: dict[str, float], memory: dict[str, tuple[int, float]], trips: dict[str, float]
) -> str:
    """The RESULTS.md section (a measure not run shows as ``nan``)."""
    load = os.getloadavg()[0]
    calls = calls or {"attached": NAN, "bare": NAN}
    init = init or dict.fromkeys(("attached", "cold", "bare", "no-daemon"), NAN)
    memory = memory or {"without": (0, NAN), "with": (0, NAN)}
    trips = trips or dict.fromkeys(("gateway", "no-daemon", "direct", "direct-2026", "gateway-legacy"), NAN)
    (without_n, without_mb), (with_n, with_mb) = memory["without"], memory["with"]
    bare_call, bare_init, direct = calls["bare"], init["bare"], trips["direct"]
    rows = [
        (
            "(a) warm `elftia-mcp call` through the host, whole process, median",
            f"{calls['attached']:.3f} s",
            f"bare SDK script spawning the server {bare_call:.3f} s",
            f"**{calls['attached'] / bare_call:.2f}**",
            "<= 0.25",
        ),
        (
            "(b) `elftia-mcp serve` spawn to `initialize` answer, host running, median",
            f"{init['attached']:.3f} s",
            f"bare SDK server {bare_init:.3f} s",
            f"**{init['attached'] / bare_init:.2f}**",
            "<= 1.0",
        ),
        (
            "(b) the same, `--no-daemon` (in-process gateway)",
            f"{init['no-daemon']:.3f} s",
            f"bare SDK server {bare_init:.3f} s",
            f"{init['no-daemon'] / bare_init:.2f}",
            "",
        ),
        (
            "(b) the same, cold: no host runs (the gateway answers while the host starts), median",
            f"{init['cold']:.3f} s",
            f"bare SDK server {bare_init:.3f} s",
            f"**{init['cold'] / bare_init:.2f}**",
            "<= 1.0",
        ),
        (
            f"(c) 3 apps x {SERVERS} servers: processes",
            f"{with_n} with the host",
            f"{without_n} without",
            f"{with_n / without_n:.2f}" if without_n else "nan",
            "",
        ),
        (
            f"(c) 3 apps x {SERVERS} servers: resident memory of them all",
            f"{with_mb:.0f} MB with the host",
            f"{without_mb:.0f} MB without",
            f"{with_mb / without_mb:.2f}",
            "",
        ),
        (
            "(d) `echo` round trip app -> gateway -> host -> server, median",
            f"{trips['gateway']:.3f} ms",
            f"direct SDK session {direct:.3f} ms",
            f"**{trips['gateway'] / direct:.2f}**",
            "<= 1.6",
        ),
        (
            "(d) the same through `serve --no-daemon` (gateway with its own pool)",
            f"{trips['no-daemon']:.3f} ms",
            f"direct SDK session {direct:.3f} ms",
            f"{trips['no-daemon'] / direct:.2f}",
            "",
        ),
        (
            "(d) the same as the first (d), against a direct session on 2026-07-28 (the era the host speaks to it)",
            f"{trips['gateway']:.3f} ms",
            f"direct SDK session on 2026-07-28 {trips['direct-2026']:.3f} ms",
            f"{trips['gateway'] / trips['direct-2026']:.2f}",
            "",
        ),
        (
            "(d) the round trip to a server the host speaks the 2025-11-25 handshake to (`protocol: legacy`)",
            f"{trips['gateway-legacy']:.3f} ms",
            f"direct SDK session {direct:.3f} ms",
            f"{trips['gateway-legacy'] / direct:.2f}",
            "",
        ),
    ]
    table = "\n".join("| " + " | ".join(row) + " |" for row in rows)
    return f"""2 CPUs shared with other work (load average {load:.1f} at the end). Servers: `tests/servers/basic.py`
(an SDK `MCPServer` in Python; a Node server such as `npx` ones costs more to spawn and more memory).

| measure | Elftia | baseline | ratio | goal |
|---|---|---|---|---|
{table}
"""


SERVERS = 10


def main() -> None:
    """Run every measure and print (``--write``: also store) the results."""
    global SERVERS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--servers", type=int, default=SERVERS)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--trip-runs", type=int, default=5, help="how many times (d) runs")
    parser.add_argument("--only", default="a,b,c,d", help="which measures to run (comma-separated)")
    parser.add_argument("--write", action="store_true", help="write the Pool host section of bench/RESULTS.md")
    args = parser.parse_args()
    SERVERS = args.servers
    only = set(args.only.split(","))
    lines: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bh-") as folder:
        base = Path(folder)
        (base / "sockets").mkdir(mode=0o700)
        try:
            calls = bench_call(base, args.rounds) if "a" in only else {}
            init = bench_initialize(base, args.rounds) if "b" in only else {}
            trips, lines = trip_runs(base, args.calls, args.trip_runs) if "d" in only else ({}, [])
            memory = bench_memory(base, args.servers) if "c" in only else {}
        finally:
            for name in ("a", "b", "c-with", "c-without"):
                env = env_for(base / name, base / "sockets")
                subprocess.run([*CLI, "daemon", "stop"], env=env, capture_output=True, timeout=60)
    text = report(calls, init, memory, trips)
    if lines:
        text += "\n(d) every run (the table shows the one with the median gateway ratio):\n\n" + "\n".join(
            f"- {line}" for line in lines
        )
    print(text)
    if args.write:
        write_section("Pool host", text, "bench/bench_host.py --write")


if __name__ == "__main__":
    main()
