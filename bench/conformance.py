"""The official MCP conformance suite's client scenarios, against our CLI and the SDK's reference client.

Run: ``.venv/bin/python bench/conformance.py --reference-client PATH [--versions 0.1.16 0.2.0-alpha.12]``

Installs ``@modelcontextprotocol/conformance`` at each version from npm (and Node 22 from the
npm package ``node@22`` when the ``node`` on PATH is older) into ``--cache``, lists the client
scenarios, and runs them one at a time: with ``bench/conformance_cli_client.py`` (each scenario
done with ``elftia-mcp`` commands) and with the SDK's reference client (``client.py`` of the
python-sdk's ``.github/actions/conformance``, given by ``--reference-client``). A scenario passes
when the harness exits 0. ``--src DIR`` runs our CLI from another source tree (e.g. an export of
main, for a before/after). Results: printed, and the counts written to the "## Conformance"
section of ``bench/RESULTS.md`` (``--no-write`` to skip); per-scenario outcomes in ``--json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.results import write_section  # noqa: E402

PACKAGE = "@modelcontextprotocol/conformance"
OURS = REPO / "bench" / "conformance_cli_client.py"


def npm_install(prefix: Path, spec: str) -> None:
    """``npm install --prefix PREFIX SPEC`` unless it is there already."""
    if (prefix / "node_modules").exists():
        return
    prefix.mkdir(parents=True, exist_ok=True)
    subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(prefix), spec], check=True)


def node_binary(cache: Path) -> str:
    """A Node >= 22: the one on PATH when new enough, else the npm package ``node@22``."""
    found = shutil.which("node")
    if found:
        version = subprocess.run([found, "--version"], capture_output=True, text=True).stdout.strip()
        if int(version.lstrip("v").split(".")[0] or 0) >= 22:
            return found
    npm_install(cache / "node22", "node@22")
    return str(cache / "node22" / "node_modules" / ".bin" / "node")


def suite(cache: Path, version: str) -> Path:
    """The suite's entry script at ``version`` (installed on first use)."""
    prefix = cache / f"suite-{version}"
    npm_install(prefix, f"{PACKAGE}@{version}")
    return prefix / "node_modules" / PACKAGE / "dist" / "index.js"


def client_scenarios(node: str, entry: Path) -> list[str]:
    """The client scenario names, from ``conformance list``."""
    listed = subprocess.run([node, str(entry), "list"], capture_output=True, text=True, check=True).stdout
    section = listed.split("Client scenarios", 1)[1] if "Client scenarios" in listed else listed
    return re.findall(r"^\s+- (\S+)", section, re.M)


def run_one(node: str, entry: Path, command: str, scenario: str, env: dict[str, str], timeout_ms: int) -> bool:
    """One scenario, alone, in a scratch folder; True when the harness passes it."""
    with tempfile.TemporaryDirectory(prefix="conformance-") as scratch:
        argv = [node, str(entry), "client", "--command", command, "--scenario", scenario, "--timeout", str(timeout_ms)]
        try:
            done = subprocess.run(argv, cwd=scratch, env=env, capture_output=True, text=True, timeout=timeout_ms / 250)
        except subprocess.TimeoutExpired:
            return False
        return done.returncode == 0


def main() -> int:
    """Install, run every client scenario per version and client, report the counts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--versions", nargs="+", default=["0.1.16", "0.2.0-alpha.12"])
    parser.add_argument("--reference-client", type=Path, help="the SDK's conformance client.py")
    parser.add_argument("--clients", nargs="+", default=["ours", "reference"], choices=["ours", "reference"])
    parser.add_argument("--src", type=Path, help="run our CLI from this source tree (PYTHONPATH)")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "elftia-conformance")
    parser.add_argument("--timeout", type=int, default=60_000, help="milliseconds per scenario (harness --timeout)")
    parser.add_argument("--only", nargs="*", help="just these scenarios")
    parser.add_argument("--json", type=Path, help="write per-scenario outcomes here")
    parser.add_argument("--label", default="this branch", help="what --src is, for the results table")
    parser.add_argument("--no-write", action="store_true", help="do not touch bench/RESULTS.md")
    args = parser.parse_args()
    if "reference" in args.clients and args.reference_client is None:
        parser.error("--reference-client is needed for the reference client (or pass --clients ours)")
    node = node_binary(args.cache)
    env = dict(os.environ) | {"PYTHONPATH": str(args.src or REPO)}
    commands = {"ours": f"{sys.executable} {OURS}", "reference": f"{sys.executable} {args.reference_client}"}
    outcomes: dict[str, dict[str, dict[str, bool]]] = {}
    for version in args.versions:
        entry = suite(args.cache, version)
        scenarios = [s for s in client_scenarios(node, entry) if not args.only or s in args.only]
        outcomes[version] = {}
        for client in args.clients:
            results = outcomes[version][client] = {}
            for scenario in scenarios:
                started = time.monotonic()
                results[scenario] = run_one(node, entry, commands[client], scenario, env, args.timeout)
                mark = "pass" if results[scenario] else "FAIL"
                print(f"{version} {client:9} {mark} {scenario} ({time.monotonic() - started:.1f} s)", flush=True)
    report = summary(outcomes, args.label)
    print(report)
    if args.json:
        args.json.write_text(json.dumps(outcomes, indent=2) + "\n", encoding="utf-8")
    if not args.no_write:
        write_section("Conformance", report, "bench/conformance.py --reference-client PATH")
    return 0


def summary(outcomes: dict[str, dict[str, dict[str, bool]]], label: str) -> str:
    """A table of pass counts and the scenarios where we and the reference differ."""
    lines = [f"Client scenarios, one at a time ({label}):", ""]
    lines += ["| suite | scenarios | ours | reference |", "|---|---|---|---|"]
    differences: list[str] = []
    for version, by_client in outcomes.items():
        ours, ref = by_client.get("ours", {}), by_client.get("reference", {})
        total = len(ours or ref)
        count = lambda results: str(sum(results.values())) if results else "-"  # noqa: E731
        lines.append(f"| {version} | {total} | {count(ours)} | {count(ref)} |")
        for scenario in ours:
            if ref and ours[scenario] != ref.get(scenario):
                who = "only the reference" if ref.get(scenario) else "only ours"
                differences.append(f"- {version} `{scenario}`: passed by {who}")
    if differences:
        lines += ["", "Differences:", *differences]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
