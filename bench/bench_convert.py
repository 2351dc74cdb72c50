"""Benchmark: converting 1000 tools (schemas captured from real MCP servers) to each provider format.

Run: ``.venv/bin/python bench/bench_convert.py [--write]``. Target: <= 50 ms per format.
``--write`` replaces the "## Tool conversion" section of ``bench/RESULTS.md``.

Baseline, measured in the same run and alternately with each format: ``copy.deepcopy`` of the
same 1000 input schemas (the least any converter that returns new trees must do); the ratio to it
stays comparable when the shared machine is busy and the milliseconds are not.
"""

from __future__ import annotations

import copy
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # ``python bench/bench_convert.py`` finds the ``bench`` package too

from elftia_desktop.tools.formats.openai import convert_mcp_tools_to_openai  # noqa: E402
from elftia_desktop.tools.loader import FORMATS, convert_tools  # noqa: E402

DATA = ROOT / "tests" / "tools" / "data"
TARGET_MS = 50.0
COUNT = 1000
RUNS = 15


def real_tools(count: int) -> list[dict[str, Any]]:
    """``count`` tools cycling through every captured real server list (names made unique)."""
    captured = [t for p in sorted(DATA.glob("*.json")) if p.stem != "zod_style"
                for t in json.loads(p.read_text(encoding="utf-8"))["tools"]]  # fmt: skip
    return [{**captured[i % len(captured)], "name": f"{captured[i % len(captured)]['name']}_{i}"} for i in range(count)]


def _run(tools: list[dict[str, Any]], fmt: str, strict: bool) -> float:
    """Wall time in ms of one conversion (``fmt`` "baseline": deep-copying the schemas)."""
    start = time.perf_counter()
    if fmt == "baseline":
        [copy.deepcopy(t.get("inputSchema")) for t in tools]  # one memo per tool: shared schemas copied each time
    elif fmt.startswith("openai"):  # all of them, not only the 128 one request takes
        convert_mcp_tools_to_openai(tools, strict=strict, responses=fmt != "openai", limit=len(tools))
    else:
        convert_tools(tools, fmt, strict=strict)
    return (time.perf_counter() - start) * 1000


def measure(tools: list[dict[str, Any]], fmt: str, strict: bool) -> tuple[float, float, float]:
    """Median and best ms of converting ``tools``, and the best baseline ms of runs interleaved with them."""
    times, base = [], []
    for _ in range(RUNS):
        base.append(_run(tools, "baseline", False))
        times.append(_run(tools, fmt, strict))
    return statistics.median(times), min(times), min(base)


def main() -> None:
    """Run and print (and with ``--write`` record) the results."""
    tools = real_tools(COUNT)
    load = os.getloadavg()[0]
    rows = []
    for fmt in FORMATS:
        for strict in (False, True) if fmt.startswith("openai") else (False,):
            median, best, base = measure(tools, fmt, strict)
            label = f"{fmt}{' --strict' if strict else ''}"
            verdict = "ok" if median <= TARGET_MS else "OVER"
            rows.append(f"| {label} | {median:.1f} | {best:.1f} | {base:.1f} | {best / base:.2f} | {verdict} |")
            print(rows[-1])
    body = "\n".join([
        f"{COUNT} tools cycling through the tool lists captured from real servers (tests/tools/data),",
        f"median and best of {RUNS} runs on a shared 2-core machine (load average {load:.1f} at the start);",
        f"target <= {TARGET_MS:.0f} ms per format.",
        "OpenAI rows convert all 1000 (a request sends at most 128). Baseline: deepcopy of the 1000 input",
        "schemas, run alternately with each format; ratio: best format time / best baseline time.", "",
        "| format | median ms | best ms | baseline best ms | ratio | target |", "|---|---|---|---|---|---|", *rows,
    ])  # fmt: skip
    if "--write" in sys.argv:
        from bench.results import write_section

        write_section("Tool conversion", body, "bench/bench_convert.py --write")


if __name__ == "__main__":
    main()
