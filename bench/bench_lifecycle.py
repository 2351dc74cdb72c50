"""Server-process lifecycle benchmark: ``.venv/bin/python bench/bench_lifecycle.py [--before PATH]``.

Measured in one run:

(a) a one-shot ``elftia-mcp call`` (whole process: start-up, connect, call, close) against a bare
    SDK script that spawns the same Node server (``@modelcontextprotocol/server-everything``,
    installed with npm into a cache folder), initializes, calls ``echo`` and closes; the two
    alternate, median of ``--rounds`` each; goal <= 1.10x;
(b) quitting the real desktop app (SIGTERM) with 20 connected stdio servers, 5 of them stubborn
    (ignore SIGTERM, outlive their stdin): seconds from the signal until the app is gone and until
    no process of any server group is left, and how many are left after 10 s; goal <= 3 s, 0 left.

``--before PATH`` runs the Elftia side of both from another checkout too (e.g. ``/work/main``),
so before and after come from the same run. Results go to the "Server lifecycle" section of
``bench/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.results import write_section  # noqa: E402
from tests.helpers.processes import STUBBORN_WRAPPER, live_groups, runtime_records  # noqa: E402

PACKAGE = "@modelcontextprotocol/server-everything@2026.8.31"
NPM_DIR = Path(tempfile.gettempdir()) / "elftia-bench-npm"
BARE = """
import sys, anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

async def main():
    params = StdioServerParameters(command=sys.argv[1], args=sys.argv[2:])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("echo", {"message": "hi"})
        print(result.content[0].text)

anyio.run(main)
"""
DRIVER = REPO / "tests" / "app" / "app_driver.py"


def node_server() -> list[str]:
    """The command line of server-everything over stdio (npm-installed into a cache folder once)."""
    entry = NPM_DIR / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
    if not entry.exists():
        NPM_DIR.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--prefix", str(NPM_DIR), PACKAGE], check=True, capture_output=True)
    return [shutil.which("node") or "node", str(entry), "stdio"]


def env_for(tree: Path, data: Path) -> dict[str, str]:
    """The environment of an Elftia process from checkout ``tree`` on data folder ``data``."""
    return os.environ | {
        "PYTHONPATH": str(tree),
        "ELFTIA_DATA_DIR": str(data),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "QT_QPA_PLATFORM": "offscreen",
    }


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    """Wall seconds of one whole process; it must succeed."""
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=120)
    elapsed = time.perf_counter() - started
    assert done.returncode == 0 and "hi" in done.stdout, done.stderr[-2000:]
    return elapsed


def bench_call(trees: dict[str, Path], rounds: int, base: Path) -> dict[str, float]:
    """(a) medians of the CLI call per tree and of the bare SDK script, alternating."""
    server = node_server()
    cli = [sys.executable, "-m", "elftia_desktop.cli"]
    for label, tree in trees.items():
        env = env_for(tree, base / label)
        add = [*cli, "add", "everything", "--trust", "--", *server]
        subprocess.run(add, env=env, cwd=tree, check=True, capture_output=True)
    bare_script = base / "bare.py"
    bare_script.write_text(BARE, encoding="utf-8")
    times: dict[str, list[float]] = {label: [] for label in [*trees, "bare"]}
    call = [*cli, "call", "everything", "echo", "--args", '{"message": "hi"}']
    for _ in range(rounds):
        for label, tree in trees.items():
            times[label].append(timed(call, env_for(tree, base / label), tree))
        times["bare"].append(timed([sys.executable, str(bare_script), *server], dict(os.environ), base))
    return {label: statistics.median(values) for label, values in times.items()}


def add_quit_servers(tree: Path, data: Path, polite: int, stubborn: int) -> None:
    """Add ``polite`` test servers that exit on EOF and ``stubborn`` sh-wrapped ones that never do."""
    servers = {
        f"polite-{i}": {"command": sys.executable, "args": [str(REPO / "tests/servers/basic.py")]}
        for i in range(polite)
    }
    for i in range(stubborn):
        servers[f"stubborn-{i}"] = {"command": "sh", "args": [str(STUBBORN_WRAPPER), sys.executable]}
    add = [sys.executable, "-m", "elftia_desktop.cli", "add-json", "-", "--trust"]
    payload = json.dumps({"mcpServers": servers})
    subprocess.run(add, input=payload, text=True, env=env_for(tree, data), cwd=tree, check=True, capture_output=True)


def bench_quit(tree: Path, data: Path, polite: int = 15, stubborn: int = 5) -> dict[str, float]:
    """(b) SIGTERM to the app with every server connected: time to exit, time until no group is left."""
    add_quit_servers(tree, data, polite, stubborn)
    app = subprocess.Popen(
        [sys.executable, str(DRIVER), "*"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env_for(tree, data),
        cwd=tree,
    )
    assert app.stdout is not None
    assert app.stdout.readline().strip() == "CONNECTED"
    groups = [int(str(r["pgid"])) for r in runtime_records(data / "runtime")]
    assert len(groups) == polite + stubborn, groups
    started = time.perf_counter()
    app.send_signal(signal.SIGTERM)
    exited = clean = None
    while (exited is None or clean is None) and time.perf_counter() - started < 10:
        now = time.perf_counter() - started
        if exited is None and app.poll() is not None:
            exited = now
        if clean is None and not live_groups(groups):
            clean = now
        time.sleep(0.01)
    app.wait(timeout=60)
    exited = exited if exited is not None else time.perf_counter() - started
    clean = clean if clean is not None else float("nan")
    left = sorted(live_groups(groups))
    for group in left:  # never leave them running
        os.killpg(group, signal.SIGKILL)
    return {"exit_s": exited, "clean_s": clean, "left": float(len(left)), "servers": float(len(groups))}


def _seconds(value: float) -> str:
    return "never (within 10 s)" if value != value else f"{value:.2f} s"


def main() -> None:
    """Run (a) and (b), print and record the results."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", type=Path, help="another checkout to measure in the same run (e.g. main)")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    trees = {"after": REPO} | ({"before": args.before.resolve()} if args.before else {})
    with tempfile.TemporaryDirectory(prefix="elftia-bench-") as tmp:
        base = Path(tmp)
        calls = bench_call(trees, args.rounds, base)
        quits = {label: bench_quit(tree, base / f"quit-{label}") for label, tree in trees.items()}
    rows = [
        f"| (a) `elftia-mcp call` on server-everything, whole process, median of {args.rounds} ({label}) | "
        f"{calls[label]:.2f} s | bare SDK script {calls['bare']:.2f} s | **{calls[label] / calls['bare']:.2f}** "
        "| <= 1.10 |"
        for label in trees
    ]
    rows += [
        f"| (b) quit (SIGTERM) with {q['servers']:.0f} connected servers, 5 stubborn ({label}) | no server "
        f"process left after **{_seconds(q['clean_s'])}**, app gone after {q['exit_s']:.2f} s | groups left after "
        f"10 s: **{q['left']:.0f}** | | <= 3 s, 0 left |"
        for label, q in quits.items()
    ]
    body = "\n".join(
        [
            f"{os.cpu_count()} CPUs shared with other work (load average {os.getloadavg()[0]:.1f} at the end of the "
            "run); the calls alternate Elftia and the bare script. Quit: the app's own exit after the servers are "
            "gone is Python and Qt tearing down.",
            "",
            "| measure | Elftia | baseline | ratio | goal |",
            "|---|---|---|---|---|",
            *rows,
        ]
    )
    print(body)
    write_section("Server lifecycle", body, "bench/bench_lifecycle.py" + (" --before ..." if args.before else ""))


if __name__ == "__main__":
    main()
