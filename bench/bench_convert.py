"""Benchmark: converting 1000 tools (schemas captured from real MCP servers) to each provider format,
and what each provider mode still loses on the captured corpus, before (main) and after.

Run: ``.venv/bin/python bench/bench_convert.py [--write]``. Target: <= 50 ms per format.
``--write`` replaces the "## Tool conversion" section of ``bench/RESULTS.md``.

Speed baseline, measured in the same run and alternately with each format: ``copy.deepcopy`` of the
same 1000 input schemas (the least any converter that returns new trees must do); the ratio to it
stays comparable when the shared machine is busy and the milliseconds are not. Each run is timed
twice: wall time (``time.perf_counter``) and the CPU time of this process (``time.process_time``),
which waiting for a core on a loaded machine does not inflate.

Losses: the converters of the ``main`` branch (``git archive main``, run in a child process with
``--code DIR --losses-json``) and of this work tree convert the same corpus (every captured real
server list in tests/tools/data, the files that name their package); the counts are read from the
payloads and notes only, so both versions are measured the same way.
"""

from __future__ import annotations

import copy
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if "--code" in sys.argv:  # measure another version of the package (the losses of main)
    sys.path.insert(0, sys.argv[sys.argv.index("--code") + 1])
else:
    sys.path.insert(0, str(ROOT))  # ``python bench/bench_convert.py`` finds the ``bench`` package too

from elftia_desktop.tools.formats.openai import convert_mcp_tools_to_openai  # noqa: E402
from elftia_desktop.tools.loader import convert_tools  # noqa: E402

DATA = ROOT / "tests" / "tools" / "data"
TARGET_MS = 50.0
COUNT = 1000
RUNS = 15
FORMATS = ("openai", "openai-responses", "anthropic", "gemini", "gemini-json")
LOSSY = ("dropped", "cut", "fallback", "skipped", "warning")
NOISE = ("$schema", "title")
"""Root keys main noted as dropped and this branch leaves out silently (a dialect marker, a title): not counted."""
GEMINI_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]{0,63}$")
STRICT_KEYS = {"type", "description", "title", "enum", "const", "anyOf", "$ref", "$defs", "pattern", "format",
               "multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "items", "minItems",
               "maxItems", "properties", "required", "additionalProperties"}  # fmt: skip
GEMINI_JSON_SUBSET = {"type", "title", "description", "anyOf", "$ref", "$defs", "properties", "required",
                      "additionalProperties", "enum", "format", "minimum", "maximum", "items", "prefixItems",
                      "minItems", "maxItems"}  # fmt: skip
"""Gemini's documented JSON Schema keywords (ai.google.dev, Structured output, JSON Schema support)."""


def corpus() -> list[dict[str, Any]]:
    """Every tool of every captured real server list (files that name their package), names made unique."""
    tools = []
    for path in sorted(DATA.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if "package" in data:
            tools.extend({**t, "name": f"{path.stem}__{t['name']}"} for t in data["tools"])
    return tools


def real_tools(count: int) -> list[dict[str, Any]]:
    """``count`` tools cycling through the corpus (names made unique)."""
    captured = corpus()
    return [{**captured[i % len(captured)], "name": f"{captured[i % len(captured)]['name']}_{i}"} for i in range(count)]


def _run(tools: list[dict[str, Any]], fmt: str, strict: bool) -> tuple[float, float]:
    """Wall and CPU time in ms of one conversion (``fmt`` "baseline": deep-copying the schemas)."""
    start, cpu = time.perf_counter(), time.process_time()
    if fmt == "baseline":
        [copy.deepcopy(t.get("inputSchema")) for t in tools]  # one memo per tool: shared schemas copied each time
    elif fmt.startswith("openai"):  # all of them, not only the 128 one request takes
        convert_mcp_tools_to_openai(tools, strict=strict, responses=fmt != "openai", limit=len(tools))
    else:
        convert_tools(tools, fmt, strict=strict)
    return (time.perf_counter() - start) * 1000, (time.process_time() - cpu) * 1000


Timing = dict[str, float]
"""``median``, ``best``, ``base`` (the best baseline) ms, wall time; the same with ``cpu_`` in front, CPU time."""


def measure(tools: list[dict[str, Any]], fmt: str, strict: bool) -> Timing:
    """Median and best ms of converting ``tools``, and the best baseline ms of runs interleaved with them."""
    runs, base = [], []
    for _ in range(RUNS):
        base.append(_run(tools, "baseline", False))
        runs.append(_run(tools, fmt, strict))
    out: Timing = {}
    for prefix, index in (("", 0), ("cpu_", 1)):
        times = [r[index] for r in runs]
        out |= {f"{prefix}median": statistics.median(times), f"{prefix}best": min(times),
                f"{prefix}base": min(b[index] for b in base)}  # fmt: skip
    return out


def schema_nodes(node: Any, depth: int = 0) -> Iterator[dict[str, Any]]:
    """Every schema node of a tree (properties, $defs, items, prefixItems, combinators, additionalProperties)."""
    if not isinstance(node, dict) or depth > 200:
        return
    yield node
    for key in ("properties", "$defs"):
        if isinstance(node.get(key), dict):
            for sub in node[key].values():
                yield from schema_nodes(sub, depth + 1)
    for key in ("items", "additionalProperties"):
        yield from schema_nodes(node.get(key), depth + 1)
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for sub in node.get(key) or [] if isinstance(node.get(key), list) else []:
            yield from schema_nodes(sub, depth + 1)


def _functions(payload: list[dict[str, Any]], fmt: str) -> list[dict[str, Any]]:
    if fmt.startswith("gemini"):
        return [d for tool in payload for d in tool["functionDeclarations"]]
    return [t if fmt != "openai" else t["function"] for t in payload]


def _params(function: dict[str, Any]) -> Any:
    for key in ("parameters", "parametersJsonSchema", "input_schema"):
        if key in function:
            return function[key]
    return None


def _count(functions: list[dict[str, Any]], test: Callable[[dict[str, Any]], int]) -> int:
    return sum(test(node) for f in functions for node in schema_nodes(_params(f)))


def losses(tools: list[dict[str, Any]]) -> dict[str, int]:
    """What each provider mode loses on ``tools``, read from the payloads and notes."""
    out: dict[str, int] = {"tools": len(tools)}
    for fmt in FORMATS:
        for strict in (False, True) if fmt.startswith("openai") else (False,):
            if fmt.startswith("openai"):
                conversion = convert_mcp_tools_to_openai(
                    tools, strict=strict, responses=fmt != "openai", limit=len(tools)
                )
            else:
                conversion = convert_tools(tools, fmt)
            out.update(_mode_losses(fmt, strict, conversion))
    return out


def _mode_losses(fmt: str, strict: bool, conversion: Any) -> dict[str, int]:
    label = fmt + (" --strict" if strict else "")
    notes = conversion.notes
    out = {
        f"{label}: lossy notes": sum(n.action in LOSSY and n.path not in NOISE for n in notes),
        f"{label}: values sent JSON-encoded (mapped back)": sum("JSON-encoded" in n.detail for n in notes),
        f"{label}: keywords said in descriptions": sum("described in the description" in n.detail for n in notes),
    }
    functions = _functions(conversion.payload, fmt)
    if fmt.startswith("openai"):
        out[f"{label}: descriptions over 1,024 characters"] = sum(len(f["description"]) > 1024 for f in functions)
    if strict:
        strict_ones = [f for f in functions if f.get("strict")]
        out[f"{label}: tools falling back to strict: false"] = len(functions) - len(strict_ones)
        out[f"{label}: `default` inside strict schemas"] = _count(strict_ones, lambda n: "default" in n)
        out[f"{label}: keywords outside strict's list"] = _count(strict_ones, lambda n: len(set(n) - STRICT_KEYS))
    if fmt == "gemini":
        bare = _count(functions, lambda n: n.get("type") == "OBJECT" and not n.get("properties"))
        out["gemini: bare objects (OBJECT without properties)"] = bare
        names = _count(functions, lambda n: sum(not GEMINI_NAME.match(k) for k in n.get("properties") or {}))
        out["gemini: property names Gemini rejects (any depth)"] = names
    if fmt == "gemini-json":
        outside = _count(functions, lambda n: len(set(n) - GEMINI_JSON_SUBSET))
        out["gemini-json: keywords outside the documented subset"] = outside
        out["gemini-json: renamed parameters"] = sum(n.action == "renamed" for n in notes)
    return out


def of_main(what: str) -> Any:
    """``--losses-json`` or ``--timings-json`` run with the converters of ``main`` (a child process on
    ``git archive main``), parsed."""
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", "main", "elftia_desktop"], check=True,
                                 capture_output=True).stdout  # fmt: skip
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        child = [sys.executable, __file__, "--code", tmp, what]
        return json.loads(subprocess.run(child, check=True, capture_output=True, text=True).stdout)


def timings() -> dict[str, Timing]:
    """``{format label: timing}`` for :data:`COUNT` tools (see :data:`Timing`)."""
    tools = real_tools(COUNT)
    out = {}
    for fmt in FORMATS:
        for strict in (False, True) if fmt.startswith("openai") else (False,):
            out[f"{fmt}{' --strict' if strict else ''}"] = measure(tools, fmt, strict)
    return out


def losses_table() -> str:
    """The before/after table of :func:`losses` on the corpus."""
    tools = corpus()
    after = losses(tools)
    before = of_main("--losses-json")
    servers = len({t["name"].split("__", 1)[0] for t in tools})
    rows = [f"Corpus: {len(tools)} tools from {servers} servers captured from npm and PyPI packages "
            "(tests/tools/data; package and version in each file).", "",
            "| provider mode: measure | main (before) | this branch (after) | after, per 1,000 tools |",
            "|---|---|---|---|"]  # fmt: skip
    for key, value in after.items():
        if key != "tools":
            rows.append(f"| {key} | {before.get(key, '—')} | {value} | {value * 1000 / len(tools):.1f} |")
    return "\n".join(rows)


def speed_rows(ours: dict[str, Timing], before: dict[str, Timing]) -> list[str]:
    """One table row per format: this tree's timings and those of main (``before``), measured in the same run."""
    rows = []
    for label, t in ours.items():
        m = before[label]
        verdict = " / ".join("ok" if t[k] <= TARGET_MS else "OVER" for k in ("median", "cpu_median"))
        rows.append(f"| {label} | {t['median']:.1f} | {t['best']:.1f} | {t['cpu_median']:.1f} | {t['cpu_best']:.1f} | "
                    f"{t['base']:.1f} / {t['cpu_base']:.1f} | {t['best'] / t['base']:.2f} | "
                    f"{t['cpu_best'] / t['cpu_base']:.2f} | {m['median']:.1f} | {m['cpu_median']:.1f} | "
                    f"{m['cpu_best'] / m['cpu_base']:.2f} | {verdict} |")  # fmt: skip
    return rows


def earlier_runs() -> str:
    """The ``### Earlier runs`` block of the section in RESULTS.md, kept as it is by ``--write``."""
    results = ROOT / "bench" / "RESULTS.md"
    text = results.read_text(encoding="utf-8") if results.exists() else ""
    found = re.search(r"^## Tool conversion\n.*?(^### Earlier runs\n.*?)(?=^## |\Z)", text, re.M | re.S)
    return found.group(1).strip() if found else ""


def main() -> None:
    """Run and print (and with ``--write`` record) the results."""
    if "--losses-json" in sys.argv or "--timings-json" in sys.argv:
        print(json.dumps(losses(corpus()) if "--losses-json" in sys.argv else timings()))
        return
    load = os.getloadavg()[0]
    rows = speed_rows(timings(), of_main("--timings-json"))
    print("\n".join(rows), flush=True)
    table = losses_table()
    print(table)
    body = "\n".join([
        f"{COUNT} tools cycling through the tool lists captured from real servers (tests/tools/data),",
        f"median and best of {RUNS} runs on a shared 2-core machine (load average {load:.1f} at the start);",
        f"target <= {TARGET_MS:.0f} ms per format. Each run is timed as wall time and as the CPU time of the",
        "process (time.process_time), which waiting for a core on a loaded machine does not inflate.",
        "OpenAI rows convert all 1000 (a request sends at most 128). Baseline: deepcopy of the 1000 input",
        "schemas, run alternately with each format; ratio: best format time / best baseline time (wall, CPU).",
        "The main columns: the converters of main on the same tools, in the same run (a child process, its own",
        "baseline). Target: median wall / median CPU time within the target.",
        "", "| format | median ms | best ms | CPU median ms | CPU best ms | baseline best ms (wall / CPU) | ratio "
        "| CPU ratio | main median ms | main CPU median ms | main CPU ratio | target (wall / CPU) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|", *rows,
        "", "On a shared machine the wall milliseconds follow the load (the deepcopy baseline alone took ~10 ms at",
        "load 3.5 and several times that above load 8): read the CPU times and the ratios, measured on the same",
        "tools in the same run.",
        "", "### What each provider mode loses", "",
        "Lossy notes: a note whose action is dropped, cut, fallback, skipped or warning (main's notes on a root",
        "`$schema` or `title`, which this branch leaves out silently, are not counted for either). Values sent",
        "JSON-encoded and keywords said in descriptions keep what the model may send and read: each has a",
        "`changed` note, and the argument map decodes the values before the call.", "", table,
        "", earlier_runs(),
    ])  # fmt: skip
    if "--write" in sys.argv:
        from bench.results import write_section

        write_section("Tool conversion", body, "bench/bench_convert.py --write")


if __name__ == "__main__":
    main()
