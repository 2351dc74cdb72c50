"""Benchmark: converting 1000 tools (schemas captured from real MCP servers) to each provider format.

Run: ``.venv/bin/python bench/bench_convert.py [--write]``. Target: <= 50 ms per format.
``--write`` replaces the "## Tool conversion" section of ``bench/RESULTS.md``.
"""

from __future__ import annotations

import json
import platform
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from elftia_desktop.tools.loader import FORMATS, convert_tools

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "tools" / "data"
RESULTS = ROOT / "bench" / "RESULTS.md"
TARGET_MS = 50.0
COUNT = 1000
RUNS = 15


def real_tools(count: int) -> list[dict[str, Any]]:
    """``count`` tools cycling through every captured real server list (names made unique)."""
    captured = [t for p in sorted(DATA.glob("*.json")) if p.stem != "zod_style"
                for t in json.loads(p.read_text(encoding="utf-8"))["tools"]]  # fmt: skip
    return [{**captured[i % len(captured)], "name": f"{captured[i % len(captured)]['name']}_{i}"} for i in range(count)]


def measure(tools: list[dict[str, Any]], fmt: str, strict: bool) -> tuple[float, float]:
    """Median and best wall time in ms of converting ``tools``."""
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        convert_tools(tools, fmt, strict=strict)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), min(times)


def main() -> None:
    """Run and print (and with ``--write`` record) the results."""
    tools = real_tools(COUNT)
    rows = []
    for fmt in FORMATS:
        for strict in (False, True) if fmt.startswith("openai") else (False,):
            median, best = measure(tools, fmt, strict)
            label = f"{fmt}{' --strict' if strict else ''}"
            limit = " (128 sent)" if fmt.startswith("openai") else ""
            verdict = "ok" if median <= TARGET_MS else "OVER"
            rows.append(f"| {label}{limit} | {median:.1f} | {best:.1f} | {verdict} |")
            print(rows[-1])
    section = "\n".join([
        "## Tool conversion", "",
        f"`bench/bench_convert.py`: {COUNT} tools cycling through the tool lists captured from real servers",
        f"(tests/tools/data), median of {RUNS} runs; target <= {TARGET_MS:.0f} ms per format.",
        f"Python {platform.python_version()} on {platform.machine()}, {time.strftime('%Y-%m-%d')}.", "",
        "| format | median ms | best ms | target |", "|---|---|---|---|", *rows, "",
    ])  # fmt: skip
    if "--write" in sys.argv:
        text = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else "# Benchmark results\n\n"
        pattern = re.compile(r"## Tool conversion\n.*?(?=\n## |\Z)", re.S)
        text = pattern.sub(section.rstrip("\n"), text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + section
        RESULTS.write_text(text.rstrip("\n") + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
