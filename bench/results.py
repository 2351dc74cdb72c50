"""Writing one section of bench/RESULTS.md without touching the others."""

from __future__ import annotations

import platform
import re
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
HEADER = "# Benchmark results\n\nEach section is rewritten by the benchmark named in it; figures come from one run.\n"


def write_section(title: str, body: str, command: str) -> None:
    """Replace (or append) the ``## title`` section of RESULTS.md."""
    text = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else HEADER
    stamp = f"{time.strftime('%Y-%m-%d')}, Python {platform.python_version()}, {platform.machine()}"
    section = f"## {title}\n\nRun: `.venv/bin/python {command}` ({stamp})\n\n{body.strip()}\n"
    pattern = re.compile(rf"^## {re.escape(title)}\n.*?(?=^## |\Z)", re.M | re.S)
    text = pattern.sub(lambda _: section + "\n", text) if pattern.search(text) else text.rstrip() + "\n\n" + section
    RESULTS.write_text(text.rstrip() + "\n", encoding="utf-8")
