"""Structural figures of the package, by an AST count (issue 19's evidence), reproducible with one command.

    python bench/code_metrics.py [--list] [package_dir]

Prints:

* public definitions (classes, functions, methods incl. Qt overrides, and functions nested in
  functions; names not starting with ``_``) without a docstring, of all of them (issue 19's count);
* functions longer than 60 lines (first line of the ``def`` to its last line);
* mixin classes (a class whose name ends in ``Mixin``);
* ``McpService`` construction sites (calls ``McpService(...)`` outside the class itself);
* issue 36's: in ``ui/``, the occurrences of ``dict[str, Any]`` and ``JsonDict``, of the name ``Any``,
  and string-key lookups (``x["key"]``, ``x.get("key")``), also outside the modules whose data is the
  protocol's own JSON (``PROTOCOL_JSON_UI``, each with its reason); router boilerplate lines in
  ``bridge/routes/`` (the callback parameters ``receiver`` / ``on_done`` / ``on_error`` and
  ``Reply(...)`` plumbing); modules over 400 lines.

``--tools`` also runs the ``duplicates`` tool on the package (pairs sharing six or more lines; "not
installed" without it) and mypy with the project's settings (its error count). ``--list`` names
each finding (file:line).
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

MAX_FUNCTION_LINES = 60
MAX_MODULE_LINES = 400
BOILERPLATE = re.compile(r"\b(receiver|on_done|on_error)\b|\bReply\(")
"""A router plumbing line: a callback parameter passed on, or a ``Reply(...)``."""
Definition = ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
PROTOCOL_JSON_UI = {
    "ui/apps/dialect.py": "the MCP Apps view's JSON-RPC messages",
    "ui/apps/context.py": "the host context the view receives as JSON",
    "ui/apps/pane.py": "the arguments of the view's last tool call",
    "ui/widgets/schema_form/schema.py": "a tool's JSON Schema read into form fields",
    "ui/widgets/schema_form/form.py": "a JSON Schema in, the tool's JSON arguments out",
    "ui/widgets/schema_form/fields.py": "JSON Schema keywords of one field",
    "ui/dialogs/elicitation_dialog.py": "the server's requested schema and the answer's JSON content",
    "ui/dialogs/url_elicitation_dialog.py": "the answer's JSON content",
    "ui/widgets/content_blocks.py": "MCP content blocks as the server sent them",
    "ui/widgets/result_view.py": "a result shown as JSON",
    "ui/dialogs/try_tool_dialog.py": "the tool's definition as the server sent it, and its JSON arguments",
    "ui/dialogs/try_history.py": "the JSON arguments of earlier calls",
    "ui/dialogs/discover_prompts.py": "a prompt's arguments as a JSON Schema for the arguments form",
    "ui/apps/meta.py": "a tool's ``_meta.ui`` as the server sent it",
}
"""Modules of ``ui/`` whose data is the protocol's own JSON (issue 36's exception), and what that JSON is."""


@dataclass
class Metrics:
    """The findings over a package."""

    public: list[str] = field(default_factory=list)
    undocumented: list[str] = field(default_factory=list)
    long_functions: list[str] = field(default_factory=list)
    mixins: list[str] = field(default_factory=list)
    service_builds: list[str] = field(default_factory=list)
    ui_dict_any: list[str] = field(default_factory=list)
    ui_any: list[str] = field(default_factory=list)
    ui_key_lookups: list[str] = field(default_factory=list)
    ui_our_dict_any: list[str] = field(default_factory=list)
    ui_our_key_lookups: list[str] = field(default_factory=list)
    router_boilerplate: list[str] = field(default_factory=list)
    long_modules: list[str] = field(default_factory=list)


def _definitions(tree: ast.AST) -> Iterator[Definition]:
    """Every class and function, at any depth (methods and nested functions included)."""
    for node in ast.walk(tree):
        if isinstance(node, Definition):
            yield node


def _all_functions(tree: ast.AST) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node


def _service_builds(tree: ast.AST) -> Iterator[int]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name == "McpService":
                yield node.lineno


def _table(node: ast.expr) -> bool:
    """True for a lookup in a fixed table, not in data: a module constant (``STATE_COLORS``) or a widget's
    own map of its buttons and rows (``self.buttons["test"]``)."""
    if isinstance(node, ast.Name):
        return node.id.isupper()
    return isinstance(node, ast.Attribute) and node.attr in ("buttons", "rows")


def _key_lookups(tree: ast.AST, skip_tables: bool = False) -> Iterator[int]:
    """Lines of ``x["key"]`` and ``x.get("key" ...)`` (a string constant as the key); ``skip_tables``
    leaves out the lookups in fixed tables (:func:`_table`)."""
    for node in ast.walk(tree):
        target = node.value if isinstance(node, ast.Subscript) else getattr(getattr(node, "func", None), "value", None)
        if skip_tables and isinstance(target, ast.expr) and _table(target):
            continue
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ):
            if isinstance(node.ctx, ast.Load):
                yield node.lineno
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            yield node.lineno


def _measure_ui(metrics: Metrics, rel: Path, text: str, tree: ast.AST) -> None:
    """Issue 36's counts in one module of ``ui/``."""
    for number, line in enumerate(text.splitlines(), 1):
        metrics.ui_dict_any.extend(f"{rel}:{number}" for _ in re.finditer(r"dict\[str, Any\]|\bJsonDict\b", line))
    names = (n.lineno for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "Any")
    metrics.ui_any.extend(f"{rel}:{line}" for line in names)
    metrics.ui_key_lookups.extend(f"{rel}:{line}" for line in _key_lookups(tree))
    if rel.relative_to(rel.parts[0]).as_posix() not in PROTOCOL_JSON_UI:
        ours = [f for f in metrics.ui_dict_any if f.startswith(f"{rel}:")]
        metrics.ui_our_dict_any.extend(ours)
        data = _key_lookups(tree, skip_tables=True)
        metrics.ui_our_key_lookups.extend(f"{rel}:{line}" for line in data)


def measure(package: Path) -> Metrics:
    """Count the findings in every ``.py`` file below ``package``."""
    metrics = Metrics()
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package.parent)
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text, str(path))
        inner = path.relative_to(package).parts
        if inner[0] == "ui":
            _measure_ui(metrics, rel, text, tree)
        if inner[:2] == ("bridge", "routes"):
            lines = enumerate(text.splitlines(), 1)
            metrics.router_boilerplate.extend(f"{rel}:{n}" for n, line in lines if BOILERPLATE.search(line))
        if len(text.splitlines()) > MAX_MODULE_LINES:
            metrics.long_modules.append(f"{rel} ({len(text.splitlines())} lines)")
        for node in _definitions(tree):
            where = f"{rel}:{node.lineno} {node.name}"
            if not node.name.startswith("_"):
                metrics.public.append(where)
                if ast.get_docstring(node) is None:
                    metrics.undocumented.append(where)
            if isinstance(node, ast.ClassDef) and node.name.endswith("Mixin"):
                metrics.mixins.append(where)
        for func in _all_functions(tree):
            length = (func.end_lineno or func.lineno) - func.lineno + 1
            if length > MAX_FUNCTION_LINES:
                metrics.long_functions.append(f"{rel}:{func.lineno} {func.name} ({length} lines)")
        metrics.service_builds.extend(f"{rel}:{line}" for line in _service_builds(tree))
    return metrics


def duplicate_pairs(package: Path) -> str:
    """The ``duplicates`` tool's count of pairs in ``package`` (its first line's number), or why there is none."""
    tool = shutil.which("duplicates")
    if tool is None:
        return "not installed"
    run = subprocess.run(
        [tool, "--repo", str(package), "--seconds", "300"], capture_output=True, text=True, check=False, timeout=600
    )
    first = run.stdout.splitlines()[0] if run.stdout else run.stderr.strip()
    found = re.search(r"(\d+) pairs?", first)
    return found.group(1) if found else ("0" if first.startswith("no duplicates") else first)


def mypy_errors(package: Path) -> str:
    """mypy's error count over ``package`` with the project's settings (``pyproject.toml`` beside it)."""
    run = subprocess.run(
        [sys.executable, "-m", "mypy", str(package)],
        capture_output=True,
        text=True,
        check=False,
        cwd=package.parent,
        timeout=1200,
    )
    return str(sum(1 for line in run.stdout.splitlines() if ": error:" in line))


def main(argv: list[str] | None = None) -> int:
    """Print the figures (and with ``--list`` every finding)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("package", nargs="?", default=str(Path(__file__).resolve().parent.parent / "elftia_desktop"))
    parser.add_argument("--list", action="store_true", help="name every finding")
    parser.add_argument("--tools", action="store_true", help="also run duplicates and mypy (slow)")
    args = parser.parse_args(argv)
    m = measure(Path(args.package))
    share = 100 * len(m.undocumented) / max(1, len(m.public))
    rows = [
        ("public definitions without a docstring", f"{len(m.undocumented)} / {len(m.public)} ({share:.1f} %)"),
        (f"functions over {MAX_FUNCTION_LINES} lines", str(len(m.long_functions))),
        ("mixin classes", str(len(m.mixins))),
        ("McpService construction sites", str(len(m.service_builds))),
        ("ui/: dict[str, Any] and JsonDict", str(len(m.ui_dict_any))),
        ("ui/: Any", str(len(m.ui_any))),
        ("ui/: string-key lookups", str(len(m.ui_key_lookups))),
        ("ui/ but PROTOCOL_JSON_UI: dict[str, Any] and JsonDict", str(len(m.ui_our_dict_any))),
        ("ui/ but PROTOCOL_JSON_UI: string-key lookups in data", str(len(m.ui_our_key_lookups))),
        ("bridge/routes/: router boilerplate lines", str(len(m.router_boilerplate))),
        (f"modules over {MAX_MODULE_LINES} lines", str(len(m.long_modules))),
    ]
    if args.tools:
        package = Path(args.package)
        rows += [("duplicates pairs", duplicate_pairs(package)), ("mypy errors", mypy_errors(package))]
    for label, value in rows:
        print(f"{label}: {value}")
    if args.list:
        for title, items in (
            ("undocumented", m.undocumented),
            ("long functions", m.long_functions),
            ("mixins", m.mixins),
            ("McpService(...)", m.service_builds),
            ("ui/ dict[str, Any] and JsonDict", m.ui_dict_any),
            ("ui/ string-key lookups", m.ui_key_lookups),
            ("ui/ but PROTOCOL_JSON_UI: dict[str, Any] and JsonDict", m.ui_our_dict_any),
            ("ui/ but PROTOCOL_JSON_UI: string-key lookups in data", m.ui_our_key_lookups),
            ("router boilerplate", m.router_boilerplate),
            ("long modules", m.long_modules),
        ):
            print(f"\n{title}:")
            print("\n".join(f"  {item}" for item in items) or "  (none)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
