"""Tool picker benchmark: 1000 tools across 50 servers, against a bare QListWidget of 1000 rows.

Run: ``.venv/bin/python bench/bench_picker.py [--write]`` (offscreen Qt). Measures, in one run:

- open: build the picker, give it the tools, show it and paint it once (median of 9);
  baseline: build a QListWidget, add 1000 rows, show and paint it.
- filter keystroke: one character typed into (or erased from) the filter, then the view
  repainted (median over 60 keystrokes); baseline: the QListWidget hiding the rows that do not
  match and repainting.

Targets (issue 9): open <= 300 ms, keystroke <= 16 ms median. ``--write`` puts the figures into the
"## Tool picker" section of bench/RESULTS.md.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication, QListWidget  # noqa: E402

from bench.results import write_section  # noqa: E402
from elftia_desktop.core.models import Agent, MCPTool  # noqa: E402
from elftia_desktop.ui.theme import apply_theme  # noqa: E402
from elftia_desktop.ui.widgets.tool_picker import ToolPicker  # noqa: E402

SERVERS, PER_SERVER = 50, 20
KEYS = ["s", "e", "a", "r", "c", "h", "_", "1"]
"""Typed then erased one by one: 16 keystrokes per round."""


def make_tools() -> list[MCPTool]:
    """1000 tools in the shape the pool produces (name, description, a small schema)."""
    tools = []
    for s in range(SERVERS):
        for t in range(PER_SERVER):
            name = ["search", "read", "write", "list", "delete"][t % 5] + f"_{t:02d}"
            schema = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
            tools.append(
                MCPTool(
                    id=f"mcp__server{s:02d}__{name}",
                    server_id=f"mcp_{s}",
                    server_name=f"server{s:02d}",
                    name=name,
                    description=f"{name.split('_')[0].title()} records of server {s} matching a query.",
                    input_schema=schema,
                )
            )
    return tools


def timed(action: Callable[[], object]) -> tuple[float, float]:
    """Milliseconds ``action`` takes: wall clock, and CPU time of this process."""
    wall, cpu = time.perf_counter(), time.process_time()
    action()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


def open_picker(app: QApplication, tools: list[MCPTool], agent: Agent) -> ToolPicker:
    """Build, fill, show and paint the picker once."""
    picker = ToolPicker()
    picker.resize(900, 640)
    picker.set_tools(tools, agent)
    picker.show()
    app.processEvents()
    picker.repaint()
    return picker


def open_list(app: QApplication, tools: list[MCPTool]) -> QListWidget:
    """Build, fill, show and paint a bare QListWidget of the same tools."""
    widget = QListWidget()
    widget.resize(900, 640)
    widget.addItems([f"{t.server_name} / {t.name}" for t in tools])
    widget.show()
    app.processEvents()
    widget.repaint()
    return widget


def keystrokes(type_key: Callable[[str], None]) -> list[tuple[float, float]]:
    """Times of typing then erasing :data:`KEYS`, four rounds."""
    times = []
    for _ in range(4):
        text = ""
        for key in KEYS:
            text += key
            times.append(timed(lambda t=text: type_key(t)))  # type: ignore[misc]
        while text:
            text = text[:-1]
            times.append(timed(lambda t=text: type_key(t)))  # type: ignore[misc]
    return times


def list_filter(widget: QListWidget) -> Callable[[str], None]:
    """The QListWidget baseline filter: hide rows that do not contain the text, repaint."""
    texts = [widget.item(i).text().lower() for i in range(widget.count())]

    def apply(text: str) -> None:
        for i, row_text in enumerate(texts):
            widget.setRowHidden(i, text not in row_text)
        widget.viewport().repaint()

    return apply


def main() -> None:
    """Measure, print, and with ``--write`` record the results."""
    app = QApplication(sys.argv)
    apply_theme(app)
    tools = make_tools()
    agent = Agent(name="bench", selected_tools={"mcp_3": ["read_01"]})
    open_picker(app, tools, agent).close()  # warm up imports and styles
    opens, list_opens = [], []
    for _ in range(9):
        opens.append(timed(lambda: open_picker(app, tools, agent).close()))
        list_opens.append(timed(lambda: open_list(app, tools).close()))
    picker = open_picker(app, tools, agent)

    def picker_key(text: str) -> None:
        picker.filter.setText(text)
        picker.tree.viewport().repaint()

    keys = keystrokes(picker_key)
    list_keys = keystrokes(list_filter(open_list(app, tools)))
    rows = []
    for clock, pick in (("wall", 0), ("CPU", 1)):
        rows += [
            (f"open, 1000 tools / 50 servers, median of 9 ({clock})", opens, list_opens, 300, pick, statistics.median),
            (f"filter keystroke, median of 64 ({clock})", keys, list_keys, 16, pick, statistics.median),
            (f"filter keystroke, slowest of 64 ({clock})", keys, list_keys, None, pick, max),
        ]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    body = [
        "1000 tools across 50 servers in the picker (ToolTreeModel in a QTreeView, offscreen Qt); baseline: a bare",
        f"QListWidget of the same 1000 rows, measured in the same run. {os.cpu_count()} CPUs, load average {load:.1f}",
        "while measuring (other builds share the machine): wall-clock figures include waiting for a CPU, CPU",
        "figures are this process's own time.",
        "",
        "| measure | picker ms | QListWidget ms | ratio | target |",
        "|---|---|---|---|---|",
    ]
    for label, ours_all, base_all, target, pick, reduce in rows:
        ours = reduce([t[pick] for t in ours_all])
        base = reduce([t[pick] for t in base_all])
        verdict = "" if target is None else ("ok" if ours <= target else f"MISSED (<= {target} ms)")
        body.append(f"| {label} | {ours:.1f} | {base:.1f} | {ours / base:.2f} | {verdict} |")
    print("\n".join(body))
    if "--write" in sys.argv:
        write_section("Tool picker", "\n".join(body), "bench/bench_picker.py --write")


if __name__ == "__main__":
    main()
