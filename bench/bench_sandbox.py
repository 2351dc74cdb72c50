"""Sandbox benchmark: ``.venv/bin/python bench/bench_sandbox.py``.

The same stdio test server (``tests/servers/basic.py``) through the pool (``McpService``), without a
sandbox and in its bubblewrap sandbox (network ``none``, and an allow-list behind the proxy), in one
run, interleaved round by round: (a) start, from ``init_client`` to an initialized session; (b) a
``echo`` tool-call round trip (median of the calls). Goal: start within 1.3x, call within 1.05x.
Written to the "## Sandbox" section of ``bench/RESULTS.md``.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from keyring.backends.fail import Keyring as NoKeyring  # noqa: E402

from bench.results import write_section  # noqa: E402
from elftia_desktop.application import servers  # noqa: E402
from elftia_desktop.connections.service import McpService  # noqa: E402
from elftia_desktop.core.catalog import ServerCatalog  # noqa: E402
from elftia_desktop.core.config_store import ConfigStore  # noqa: E402
from elftia_desktop.core.models import McpServerInput  # noqa: E402
from elftia_desktop.core.secrets import SecretVault  # noqa: E402
from elftia_desktop.platform.sandbox import sandbox_support  # noqa: E402
from tests.servers.serve_http import server_command  # noqa: E402

ROUNDS = 7
CALLS = 200
SERVERS = str(REPO / "tests" / "servers")
"""basic.py imports its folder's ``_run``: the sandboxed modes may read that folder."""
MODES: dict[str, dict[str, Any] | None] = {
    "no sandbox": None,
    "sandbox, network none": {"net": "none", "allowRead": [SERVERS]},
    "sandbox, allow-list (proxy)": {"net": "allow", "allowNet": ["example.com:443"], "allowRead": [SERVERS]},
}


async def _round(
    service: McpService, ids: dict[str, str], starts: dict[str, list[float]], calls: dict[str, list[float]]
) -> None:
    for mode, server_id in ids.items():
        began = time.perf_counter()
        await service.init_client(server_id)
        starts[mode].append(time.perf_counter() - began)
    for _ in range(CALLS):
        for mode, server_id in ids.items():  # interleaved call by call: the load hits every mode alike
            began = time.perf_counter()
            await service.call_tool(server_id, "echo", {"text": "x"})
            calls[mode].append(time.perf_counter() - began)
    for server_id in ids.values():
        await service.disconnect(server_id)


async def measure(folder: Path) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Start times and call round trips per mode, in seconds."""
    os.environ["HOME"] = str(folder / "home")
    (folder / "home").mkdir()
    vault = SecretVault(backend=NoKeyring(), fallback_path=folder / "secrets.json")
    service = McpService(ServerCatalog(ConfigStore(folder / "mcp-config.json"), vault), runtime_dir=folder / "run")
    command = server_command("basic")
    ids: dict[str, str] = {}
    for index, (mode, sandbox) in enumerate(MODES.items()):
        server = McpServerInput(
            name=f"s{index}", config={"command": command[0], "args": command[1:]}, is_trusted=True, sandbox=sandbox
        )
        result = await servers.add(service, server, connect=False)
        assert result.server is not None, result.error
        ids[mode] = result.server.id
    starts: dict[str, list[float]] = {m: [] for m in MODES}
    calls: dict[str, list[float]] = {m: [] for m in MODES}
    try:
        for _ in range(ROUNDS):
            await _round(service, ids, starts, calls)
    finally:
        await service.cleanup()
    return starts, calls


def report(starts: dict[str, list[float]], calls: dict[str, list[float]]) -> str:
    """The RESULTS.md section body."""
    base_start, base_call = statistics.median(starts["no sandbox"]), statistics.median(calls["no sandbox"])
    lines = [
        f"The basic test server through the pool, {ROUNDS} rounds (start each mode, then {CALLS} `echo` calls",
        f"interleaved call by call), load average {os.getloadavg()[0]:.1f} at the start. Ratios against",
        '"no sandbox" in the same run; goal: start <= 1.3x, call <= 1.05x.',
        "",
        "| mode | start median ms | start ratio | call median ms | call ratio |",
        "|---|---|---|---|---|",
    ]
    for mode in MODES:
        start, call = statistics.median(starts[mode]), statistics.median(calls[mode])
        lines.append(
            f"| {mode} | {start * 1000:.0f} | {start / base_start:.2f} | {call * 1000:.3f} | {call / base_call:.3f} |"
        )
    return "\n".join(lines)


def main() -> None:
    """Measure, print and write the section."""
    why = sandbox_support()
    if why is not None:
        sys.exit(f"no sandbox here: {why}")
    with tempfile.TemporaryDirectory() as folder:
        starts, calls = asyncio.run(measure(Path(folder)))
    body = report(starts, calls)
    print(body)
    write_section("Sandbox", body, "bench/bench_sandbox.py")


if __name__ == "__main__":
    main()
