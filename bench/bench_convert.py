"""Benchmark: converting 1000 tools (schemas captured from real MCP servers) to each provider format.

Run: ``.venv/bin/python bench/bench_convert.py [--write]``. Target: <= 50 ms per format.
``--write`` replaces the "## Tool conversion" section of ``bench/RESULTS.md``.

Baseline, measured in the same run: ``copy.deepcopy`` of the same 1000 input schemas (the least
any converter that returns new trees must do); the ratio to it stays comparable when the shared
machine is busy and the milliseconds are not.
"""

from __future__ import annotations

import copy
import json
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


def measure(tools: list[dict[str, Any]], fmt: str, strict: bool) -> tuple[float, float]:
    """Median and best wall time in ms of converting ``tools`` (``fmt`` "baseline": deep-copying their schemas)."""
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        if fmt == "baseline":
            [copy.deepcopy(t.get("inputSchema")) for t in tools]  # one memo per tool: shared schemas copied each time
        elif fmt.startswith("openai"):  # all of them, not only the 128 one request takes
            convert_mcp_tools_to_openai(tools, strict=strict, responses=fmt != "openai", limit=len(tools))
        else:
            convert_tools(tools, fmt, strict=strict)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), min(times)


def main() -> None:
    """Run and print (and with ``--write`` record) the results."""
    tools = real_tools(COUNT)
    base_median, base_best = measure(tools, "baseline", False)
    rows = [f"| baseline: deepcopy of the schemas | {base_median:.1f} | {base_best:.1f} | 1.00 | |"]
    print(rows[-1])
    for fmt in FORMATS:
        for strict in (False, True) if fmt.startswith("openai") else (False,):
            median, best = measure(tools, fmt, strict)
            label = f"{fmt}{' --strict' if strict else ''}"
            verdict = "ok" if median <= TARGET_MS else "OVER"
            rows.append(f"| {label} | {median:.1f} | {best:.1f} | {best / base_best:.2f} | {verdict} |")
            print(rows[-1])
    body = "\n".join([
        f"{COUNT} tools cycling through the tool lists captured from real servers (tests/tools/data),",
        f"median and best of {RUNS} runs on a shared 2-core machine; target <= {TARGET_MS:.0f} ms per format.",
        "OpenAI rows convert all 1000 (a request sends at most 128). Ratio: best time / best baseline time.", "",
        "| format | median ms | best ms | ratio to baseline | target |", "|---|---|---|---|---|", *rows,
    ])  # fmt: skip
    if "--write" in sys.argv:
        from bench.results import write_section

        write_section("Tool conversion", body, "bench/bench_convert.py --write")


if __name__ == "__main__":
    main()
