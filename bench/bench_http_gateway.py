"""HTTP gateway benchmark: ``.venv/bin/python bench/bench_http_gateway.py [--calls N] [--runs N] [--write]``.

One SDK client (``ClientSession`` over Streamable HTTP, the 2025-11-25 handshake) calls ``echo`` of
the same stdio test server (``tests/servers/basic.py``) through:

* the pool host's own HTTP endpoint (``host-http.json``; the daemon started with ``daemon start``);
* ``elftia-mcp serve --http`` run by hand (the host listens on its port: the same path);
* mcp-proxy (PyPI ``mcp-proxy``) in front of the server, its ``/mcp`` endpoint;
* supergateway (npm ``supergateway``, ``--outputTransport streamableHttp --stateful``);
* and a direct stdio session on the server (the floor).

The calls are interleaved (one of each in turn, in a new random order each round), after 20 warm-up
calls each; the median per call of each, and the ratio of ours to the best of the two proxies.
``--runs`` repeats it with fresh processes and reports every run; the table shows the run with the
median ratio. The peers are installed into a temporary folder for the run (``--peers DIR`` reuses
one), never as project dependencies; a peer that cannot be installed is shown as not measured.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AsyncExitStack, ExitStack, asynccontextmanager, contextmanager
from pathlib import Path

import anyio
import httpx2
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.results import write_section  # noqa: E402
from tests.gateway.gateway_helpers import add_stdio, open_catalog  # noqa: E402
from tests.servers.serve_http import server_command  # noqa: E402

CLI = [sys.executable, "-m", "elftia_desktop.cli"]
WARMUP = 20
LABELS = {
    "host": "pool host's HTTP endpoint",
    "serve-http": "`serve --http` (host listens)",
    "mcp-proxy": "mcp-proxy (PyPI)",
    "supergateway": "supergateway (npm)",
    "direct": "direct stdio session",
}


def env_for(data: Path, sockets: Path) -> dict[str, str]:
    """An Elftia process on data folder ``data`` with host sockets in ``sockets``."""
    return os.environ | {
        "PYTHONPATH": str(REPO),
        "ELFTIA_DATA_DIR": str(data),
        "ELFTIA_HOST_DIR": str(sockets),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }


def install_peers(folder: Path) -> dict[str, list[str] | None]:
    """mcp-proxy in a venv and supergateway with npm, in ``folder``; the command of each (None: not installed)."""
    proxy = folder / "venv" / "bin" / "mcp-proxy"
    if not proxy.exists():
        subprocess.run([sys.executable, "-m", "venv", str(folder / "venv")], check=True)
        subprocess.run([str(folder / "venv/bin/pip"), "install", "-q", "mcp-proxy"], check=False)
    gateway = folder / "npm" / "node_modules" / ".bin" / "supergateway"
    if not gateway.exists():
        subprocess.run(["npm", "install", "--silent", "--prefix", str(folder / "npm"), "supergateway"], check=False)
    return {
        "mcp-proxy": [str(proxy)] if proxy.exists() else None,
        "supergateway": [str(gateway)] if gateway.exists() else None,
    }


def free_port() -> int:
    """A free port on 127.0.0.1."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_listening(port: int, process: subprocess.Popen[bytes], limit: float = 60) -> None:
    """Until something accepts on ``port`` (the peer printed nothing we could wait on instead)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        assert process.poll() is None, f"the peer exited with {process.returncode}"
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listened on {port} within {limit:.0f} s")


@contextmanager
def peer(argv: list[str], port: int) -> Iterator[None]:
    """A proxy process listening on ``port``, stopped at the end."""
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_listening(port, process)
        yield
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def serve_http(env: dict[str, str]) -> Iterator[str]:
    """``elftia-mcp serve --http 0`` (the host listens); its URL."""
    process = subprocess.Popen([*CLI, "serve", "--http", "0"], env=env, stdout=subprocess.PIPE, text=True, cwd=REPO)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        yield line.rsplit(" at ", 1)[1].strip()
    finally:
        process.terminate()
        process.wait(timeout=30)


@asynccontextmanager
async def http_client(url: str, token: str | None) -> AsyncIterator[ClientSession]:
    """An initialized SDK session over Streamable HTTP."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30)) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


async def interleaved(sessions: dict[str, tuple[ClientSession, str]], calls: int) -> dict[str, float]:
    """Median milliseconds per ``echo`` call of each session, one call of each in turn.

    Each round takes the paths in a new random order (seeded), so no path always comes right after
    another: with the order only turned, ``serve --http`` always followed the host's endpoint and
    found the same host process awake from the call before.
    """
    times: dict[str, list[float]] = {label: [] for label in sessions}
    order = list(sessions.items())
    shuffler = random.Random(30)
    for index in range(calls + WARMUP):
        shuffler.shuffle(order)
        for label, (session, tool) in order:
            started = time.perf_counter()
            result = await session.call_tool(tool, {"text": "hi"})
            elapsed = time.perf_counter() - started
            assert not result.is_error, (label, result)
            if index >= WARMUP:
                times[label].append(elapsed)
    return {label: statistics.median(values) * 1000 for label, values in times.items()}


def _cli(env: dict[str, str], *args: str) -> str:
    done = subprocess.run([*CLI, *args], env=env, capture_output=True, text=True, cwd=REPO, timeout=120, check=True)
    return done.stdout.strip()


async def one_run(base: Path, peers: dict[str, list[str] | None], calls: int) -> dict[str, float]:
    """One run with fresh processes: every target in front of its own copy of the same server."""
    data, sockets = base / "data", base / "sockets"
    sockets.mkdir(mode=0o700, exist_ok=True)
    catalog = open_catalog(data)
    add_stdio(catalog, "basic", "basic")
    add_stdio(catalog, "basic2", "basic")  # serve --http calls its own copy: no path shares a server process
    env = env_for(data, sockets)
    token = _cli(env, "gateway", "token")
    _cli(env, "daemon", "start")
    host_url = json.loads((data / "host-http.json").read_text(encoding="utf-8"))["url"]
    command = server_command("basic")
    ports = {name: free_port() for name in peers}
    argvs = {
        "mcp-proxy": [
            *(peers["mcp-proxy"] or []),
            *("--host", "127.0.0.1", "--port", str(ports["mcp-proxy"]), "--"),
            *command,
        ],
        "supergateway": [
            *(peers["supergateway"] or []),
            *("--stdio", " ".join(command), "--outputTransport", "streamableHttp", "--stateful"),
            *("--port", str(ports["supergateway"])),
        ],
    }
    try:
        with ExitStack() as stack:
            owner_url = stack.enter_context(serve_http(env))
            for name in peers:
                if peers[name]:
                    stack.enter_context(peer(argvs[name], ports[name]))
            async with AsyncExitStack() as sessions_stack:
                sessions: dict[str, tuple[ClientSession, str]] = {
                    "host": (await sessions_stack.enter_async_context(http_client(host_url, token)), "basic__echo"),
                    "serve-http": (
                        await sessions_stack.enter_async_context(http_client(owner_url, token)),
                        "basic2__echo",
                    ),
                }
                for name in peers:
                    if peers[name]:
                        url = f"http://127.0.0.1:{ports[name]}/mcp"
                        sessions[name] = (await sessions_stack.enter_async_context(http_client(url, None)), "echo")
                params = StdioServerParameters(command=command[0], args=command[1:])
                read, write = await sessions_stack.enter_async_context(stdio_client(params))
                direct = await sessions_stack.enter_async_context(ClientSession(read, write))
                await direct.initialize()
                sessions["direct"] = (direct, "echo")
                return await interleaved(sessions, calls)
    finally:
        _cli(env, "daemon", "stop")


def ratio_to_best(figures: dict[str, float]) -> float:
    """Ours (the host's endpoint) over the best of the proxies that were measured."""
    best = min((figures[name] for name in ("mcp-proxy", "supergateway") if name in figures), default=float("nan"))
    return figures["host"] / best


def report(runs: list[dict[str, float]], loads: list[float], calls: int) -> str:
    """The RESULTS.md section: the run with the median ratio, and every run."""
    ordered = sorted(range(len(runs)), key=lambda i: ratio_to_best(runs[i]))
    shown = runs[ordered[len(ordered) // 2]]
    best = ratio_to_best(shown)
    lines = [
        f"One SDK client (`ClientSession`, Streamable HTTP) calls `echo` of the same stdio test server; {calls} calls",
        f"each, interleaved, after {WARMUP} warm-up calls; median ms per call. Runs: {len(runs)} (fresh processes",
        "each); the table shows the run with the median ratio. Goal: ours no slower than the best proxy.",
        "",
        "| path | ms per call | vs best proxy |",
        "| --- | ---: | ---: |",
    ]
    best_proxy = shown["host"] / best
    for name, label in LABELS.items():
        if name in shown:
            lines.append(f"| {label} | {shown[name]:.2f} | {shown[name] / best_proxy:.2f}x |")
        else:
            lines.append(f"| {label} | not measured | |")
    lines += ["", f"Ours vs the best proxy: **{best:.2f}x**. Every run (host / best proxy, load average):", ""]
    for figures, load in zip(runs, loads, strict=True):
        lines.append(
            f"- {ratio_to_best(figures):.2f}x ({', '.join(f'{k} {v:.2f}' for k, v in figures.items())}; {load:.2f})"
        )
    return "\n".join(lines)


Figures = dict[str, float]
"""Milliseconds per call of each path in one run."""


def fresh_runs(
    scratch: Path, count: int, measure: Callable[[Path], Awaitable[Figures]], show: Callable[[Figures], str]
) -> tuple[list[Figures], list[float]]:
    """``count`` runs of ``measure`` (each in a new folder of ``scratch``: fresh processes), and the load after each.

    Each run's figures are printed as they come (``show``), so a long bench shows it is alive.
    """
    runs: list[Figures] = []
    loads: list[float] = []
    for index in range(count):
        base = scratch / f"run{index}"
        base.mkdir()
        runs.append(anyio.run(measure, base))
        loads.append(os.getloadavg()[0])
        print(f"run {index + 1}: {show(runs[-1])} load {loads[-1]:.1f}", flush=True)
    return runs, loads


def main() -> None:
    """Measure, print, and with ``--write`` record the section."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--peers", type=Path, help="a folder with the peers installed (default: a temporary one)")
    parser.add_argument("--write", action="store_true", help="write the HTTP gateway section of bench/RESULTS.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ehttp-") as scratch:
        peers = install_peers(args.peers or Path(scratch) / "peers")
        runs, loads = fresh_runs(
            Path(scratch),
            args.runs,
            lambda base: one_run(base, peers, args.calls),
            lambda figures: f"{ratio_to_best(figures):.2f}x {figures}",
        )
    text = report(runs, loads, args.calls)
    print(text)
    if args.write:
        write_section("HTTP gateway", text, "bench/bench_http_gateway.py --write")


if __name__ == "__main__":
    main()
