"""Benchmark: tool pinning on a re-list of 1000 tools, against the listing itself.

Run: ``.venv/bin/python bench/bench_pinning.py [--write]``. Target: pinning (and the lint, where it
runs) <= 5 ms for 1000 tools on a re-list. ``--write`` replaces the "## Tool pinning" section of
``bench/RESULTS.md``.

Measured in one run, median and best of 15:
- the listing itself: ``tools/list`` of 1000 tools from a real stdio server (tests/servers/many_tools.py),
  and parsing a 1000-tool result shaped like the real lists (``ListToolsResult.model_validate``);
- ``ToolGuard.admit`` on a re-list that matches the pins (what every listing pays);
- ``ToolGuard.admit`` when one tool changed (hashing, compare, the pins file written);
- linting all 1000 definitions (what a review or the first trust pays).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import mcp_types as types  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

from bench.results import write_section  # noqa: E402
from elftia_desktop.connections.tool_guard import ToolGuard  # noqa: E402
from elftia_desktop.core.models import McpServerRecord  # noqa: E402
from elftia_desktop.core.tool_pin_store import PinStore  # noqa: E402
from elftia_desktop.core.tool_pins import lint_tool, tool_definition  # noqa: E402

DATA = ROOT / "tests" / "tools" / "data"
COUNT = 1000
RUNS = 15
TARGET_MS = 5.0


def real_tools(count: int) -> list[dict[str, Any]]:
    """``count`` tools cycling through every captured real server list (names made unique)."""
    captured = [t for p in sorted(DATA.glob("*.json")) for t in json.loads(p.read_text(encoding="utf-8"))["tools"]]
    return [{**captured[i % len(captured)], "name": f"{captured[i % len(captured)]['name']}_{i}"} for i in range(count)]


async def timed(work: Callable[[], Awaitable[Any]]) -> tuple[float, float]:
    """Median and best ms of ``RUNS`` runs of ``work``."""
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        await work()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), min(times)


async def stdio_listing() -> tuple[float, float]:
    """``tools/list`` of 1000 tools from a real server over stdio."""
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(ROOT / "tests" / "servers" / "many_tools.py")],
        env=dict(os.environ) | {"MANY_TOOLS": str(COUNT)},
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return await timed(session.list_tools)


async def main() -> list[tuple[str, float, float]]:
    """Every measure: (label, median ms, best ms)."""
    raw = real_tools(COUNT)
    payload = json.dumps({"tools": raw})
    tools = list(types.ListToolsResult.model_validate_json(payload).tools)
    record = McpServerRecord(name="bench", type="stdio", config={"command": "x"}, is_trusted=True)
    rows = [("tools/list of 1000 tools from a real stdio server (the listing itself)", *await stdio_listing())]

    async def parse() -> None:
        types.ListToolsResult.model_validate_json(payload)

    rows.append(("parsing a 1000-tool tools/list result shaped like the real lists", *await timed(parse)))
    with tempfile.TemporaryDirectory() as folder:
        guard = ToolGuard(PinStore(Path(folder) / "tool-pins.json"))
        await guard.admit(record, tools, "Use these tools well.")  # first listing: everything pinned

        async def relist() -> None:
            assert len(await guard.admit(record, tools, "Use these tools well.")) == COUNT

        rows.append(("pinning on a re-list that matches the pins (every listing)", *await timed(relist)))
        changed = [*tools[:-1], tools[-1].model_copy(update={"description": "Now it says something else."})]

        async def relist_changed() -> None:
            guard._cached.clear()
            guard._last.clear()
            assert len(await guard.admit(record, changed, "Use these tools well.")) == COUNT - 1

        rows.append(
            ("pinning on a re-list with 1 changed tool (pins file read and written)", *await timed(relist_changed))
        )
    definitions = [tool_definition(t) for t in tools]

    async def lint_all() -> None:
        assert sum(len(lint_tool(d)) for d in definitions) == 0

    rows.append(("linting 1000 definitions (at review and first trust)", *await timed(lint_all)))
    return rows


def report(rows: list[tuple[str, float, float]]) -> str:
    """The RESULTS.md table."""
    listing = rows[0][1]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [
        f"{COUNT} tools cycling through the tool lists captured from real servers (tests/tools/data);",
        f"median and best of {RUNS} runs on a shared {os.cpu_count()}-CPU machine (load average {load:.1f} at end).",
        f"Target: pinning on a re-list <= {TARGET_MS:g} ms, judged on the best run (the median follows the load).",
        "The other pinning rows are not paid on a re-list: a changed listing (once per change, in a worker",
        "thread) and the lint (at review and first trust). Ratio: median / the median of the real stdio listing.",
        "",
        "| measure | median ms | best ms | ratio to the listing | target |",
        "|---|---|---|---|---|",
    ]
    for index, (label, median, best) in enumerate(rows):
        target = ("ok" if best <= TARGET_MS else "OVER") if index == 2 else ""
        lines.append(f"| {label} | {median:.2f} | {best:.2f} | {median / listing:.3f} | {target} |")
    return "\n".join(lines)


if __name__ == "__main__":
    table = report(asyncio.run(main()))
    print(table)
    if "--write" in sys.argv:
        write_section("Tool pinning", table, "bench/bench_pinning.py --write")
