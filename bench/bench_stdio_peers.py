"""Stdio gateway against the proxies people use instead: ``.venv/bin/python bench/bench_stdio_peers.py``.

Options: ``[--calls N] [--trip-runs N] [--peers DIR]``. One SDK client (``ClientSession``, the
2025-11-25 handshake: the app side of bench_host.py (d)) calls ``echo`` of the same stdio test server
(``tests/servers/basic.py``, each path in front of its own copy) through:

* ``elftia-mcp serve``: app -> forwarder -> pool host -> server (the host started with ``daemon start``);
* FastMCP's proxy (PyPI ``fastmcp``, its own venv): ``fastmcp run mcp.json --transport stdio`` on an
  ``mcpServers`` config, stdio in and stdio out, the way its docs put several servers behind one entry;
* mcpm (PyPI ``mcpm``, its own venv; a server manager built on an older FastMCP and ``mcp`` 1.x): the
  server added with ``mcpm new``, put in a profile, and ``mcpm profile run`` (stdio, its default);
* and a direct stdio session on the server (the floor).

The calls are interleaved (one of each in turn, in a new random order each round, after warm-up calls);
the median per call of each path, its ratio to the direct session and to the best peer.
``--trip-runs N`` repeats it with fresh processes and reports every run with the load average then;
the table shows the run with the median ratio to the best peer. The peers are installed into a
temporary folder for the run (``--peers DIR`` reuses one), never as project dependencies; a peer that
cannot be installed is shown as not measured.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from contextlib import AsyncExitStack
from pathlib import Path
from typing import TextIO

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.bench_http_gateway import WARMUP, env_for, fresh_runs, interleaved  # noqa: E402
from tests.gateway.gateway_helpers import add_stdio, open_catalog  # noqa: E402
from tests.servers.serve_http import server_command  # noqa: E402

CLI = [sys.executable, "-m", "elftia_desktop.cli"]
PEERS = ("fastmcp", "mcpm")
LABELS = {
    "gateway": "`elftia-mcp serve` -> pool host -> server",
    "fastmcp": "FastMCP proxy (`fastmcp run mcp.json`, PyPI)",
    "mcpm": "mcpm profile (`mcpm profile run`, PyPI)",
    "direct": "direct SDK session on the server",
}


def install_peers(folder: Path) -> tuple[dict[str, str | None], dict[str, str]]:
    """Each peer in its own venv in ``folder``: its executable (None: not installed) and its versions."""
    commands: dict[str, str | None] = {}
    versions = {}
    for name in PEERS:
        venv = folder / f"{name}-venv"
        executable = venv / "bin" / name
        if not executable.exists():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            subprocess.run([str(venv / "bin" / "pip"), "install", "-q", name], check=False)
        commands[name] = str(executable) if executable.exists() else None
        if executable.exists():
            shown = subprocess.run([str(venv / "bin" / "pip"), "list", "--format=json"], capture_output=True, text=True)
            got = {item["name"].lower(): item["version"] for item in json.loads(shown.stdout)}
            below = ", ".join(f"{dep} {got[dep]}" for dep in ("fastmcp", "mcp") if dep != name and dep in got)
            versions[name] = f"{name} {got.get(name)} ({below})"
    return commands, versions


def peer_params(name: str, executable: str, command: list[str], base: Path) -> StdioServerParameters:
    """Peer ``name`` in front of the server ``command``, stdio in and out, set up as its docs say."""
    if name == "fastmcp":
        config = base / "fastmcp-mcp.json"
        server = {"command": command[0], "args": command[1:]}
        config.write_text(json.dumps({"mcpServers": {"basic": server}}), encoding="utf-8")
        quiet = ["--transport", "stdio", "--no-banner", "--log-level", "WARNING"]
        return StdioServerParameters(command=executable, args=["run", str(config), *quiet])
    home = base / "mcpm-home"  # mcpm keeps its servers and profiles in ~/.config/mcpm
    env = {"HOME": str(home), "PATH": os.environ["PATH"], "MCPM_NON_INTERACTIVE": "true", "PYTHONWARNINGS": "ignore"}
    for step in (
        ["new", "basic", "--type", "stdio", "--command", command[0], "--args", " ".join(command[1:]), "--force"],
        ["profile", "create", "bench"],
        ["profile", "edit", "bench", "--add-server", "basic", "--force"],
    ):
        subprocess.run([executable, *step], env=env, capture_output=True, timeout=120, check=True)
    return StdioServerParameters(command=executable, args=["profile", "run", "bench"], env=env)


async def open_session(stack: AsyncExitStack, params: StdioServerParameters, errlog: TextIO) -> ClientSession:
    """An initialized SDK session on a stdio process (the handshake era, as the apps speak it)."""
    read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog))
    session = await stack.enter_async_context(ClientSession(read, write))
    await session.initialize()
    return session


async def echo_tool(session: ClientSession) -> str:
    """The name the path gives the server's ``echo`` (a prefix or none)."""
    names = [tool.name for tool in (await session.list_tools()).tools]
    return next(name for name in names if name == "echo" or name.endswith("__echo") or name.endswith("_echo"))


def _cli(env: dict[str, str], *args: str) -> None:
    subprocess.run([*CLI, *args], env=env, capture_output=True, cwd=REPO, timeout=120, check=True)


async def one_run(base: Path, peers: dict[str, str | None], calls: int) -> dict[str, float]:
    """One run with fresh processes: every path in front of its own copy of the same server."""
    data, sockets = base / "data", base / "sockets"
    sockets.mkdir(mode=0o700, exist_ok=True)
    add_stdio(open_catalog(data), "basic", "basic")
    env = env_for(data, sockets)
    command = server_command("basic")
    paths = {"gateway": StdioServerParameters(command=sys.executable, args=[*CLI[1:], "serve"], env=env)}
    for name, executable in peers.items():
        if executable:
            paths[name] = peer_params(name, executable, command, base)
    paths["direct"] = StdioServerParameters(command=command[0], args=command[1:])
    _cli(env, "daemon", "start")
    try:
        with (base / "stderr.log").open("w", encoding="utf-8") as errlog:
            async with AsyncExitStack() as stack:
                sessions: dict[str, tuple[ClientSession, str]] = {}
                for label, params in paths.items():
                    session = await open_session(stack, params, errlog)
                    sessions[label] = (session, await echo_tool(session))
                return await interleaved(sessions, calls)
    finally:
        _cli(env, "daemon", "stop")


def best_peer(figures: dict[str, float]) -> float:
    """The fastest peer's median of one run (nan when no peer was measured)."""
    return min((figures[name] for name in PEERS if name in figures), default=float("nan"))


def report(runs: list[dict[str, float]], loads: list[float], calls: int, versions: dict[str, str]) -> str:
    """The RESULTS.md text: the run with the median ratio to the best peer, and every run."""
    ordered = sorted(range(len(runs)), key=lambda i: runs[i]["gateway"] / best_peer(runs[i]))
    shown = runs[ordered[len(ordered) // 2]]
    lines = [
        f"One SDK client (`ClientSession`, 2025-11-25) calls `echo` of the same stdio test server; {calls} calls",
        f"per path, interleaved in a new random order each round, after {WARMUP} warm-up calls; median ms per call.",
        f"Runs: {len(runs)} (fresh processes each); the table shows the run with the median ratio to the best peer.",
        f"Peers: {', '.join(versions.values()) or 'none installed'}.",
        "",
        "| path | ms per call | vs direct | vs best peer |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name, label in LABELS.items():
        if name in shown:
            ms = shown[name]
            lines.append(f"| {label} | {ms:.3f} | {ms / shown['direct']:.2f}x | {ms / best_peer(shown):.2f}x |")
        else:
            lines.append(f"| {label} | not measured | | |")
    lines += ["", "Every run (ours / best peer; ms per call; load average):", ""]
    for figures, load in zip(runs, loads, strict=True):
        each = ", ".join(f"{name} {value:.3f}" for name, value in figures.items())
        lines.append(f"- {figures['gateway'] / best_peer(figures):.2f}x ({each}; load {load:.1f})")
    return "\n".join(lines)


def main() -> None:
    """Install the peers (or reuse ``--peers``), measure ``--trip-runs`` times, print the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--trip-runs", type=int, default=3, help="how many runs, fresh processes each")
    parser.add_argument("--peers", type=Path, help="a folder with the peers installed (default: a temporary one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="estdio-") as scratch:
        peers, versions = install_peers(args.peers or Path(scratch) / "peers")
        runs, loads = fresh_runs(Path(scratch), args.trip_runs, lambda base: one_run(base, peers, args.calls), str)
    print(report(runs, loads, args.calls, versions))


if __name__ == "__main__":
    main()
