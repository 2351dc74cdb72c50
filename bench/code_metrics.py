"""Structural figures of the package, by an AST count (issue 19's evidence), reproducible with one command.

    python bench/code_metrics.py [--list] [package_dir]

Prints:

* public definitions (classes, functions, methods incl. Qt overrides, and functions nested in
  functions; names not starting with ``_``) without a docstring, of all of them (issue 19's count);
* functions longer than 60 lines (first line of the ``def`` to its last line);
* mixin classes (a class whose name ends in ``Mixin``);
* ``McpService`` construction sites (calls ``McpService(...)`` outside the class itself).

``--list`` names each finding (file:line).
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

MAX_FUNCTION_LINES = 60
Definition = ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef


@dataclass
class Metrics:
    """The findings over a package."""

    public: list[str] = field(default_factory=list)
    undocumented: list[str] = field(default_factory=list)
    long_functions: list[str] = field(default_factory=list)
    mixins: list[str] = field(default_factory=list)
    service_builds: list[str] = field(default_factory=list)


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


def measure(package: Path) -> Metrics:
    """Count the findings in every ``.py`` file below ``package``."""
    metrics = Metrics()
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package.parent)
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
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


def main(argv: list[str] | None = None) -> int:
    """Print the figures (and with ``--list`` every finding)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("package", nargs="?", default=str(Path(__file__).resolve().parent.parent / "elftia_desktop"))
    parser.add_argument("--list", action="store_true", help="name every finding")
    args = parser.parse_args(argv)
    m = measure(Path(args.package))
    share = 100 * len(m.undocumented) / max(1, len(m.public))
    rows = [
        ("public definitions without a docstring", f"{len(m.undocumented)} / {len(m.public)} ({share:.1f} %)"),
        (f"functions over {MAX_FUNCTION_LINES} lines", str(len(m.long_functions))),
        ("mixin classes", str(len(m.mixins))),
        ("McpService construction sites", str(len(m.service_builds))),
    ]
    for label, value in rows:
        print(f"{label}: {value}")
    if args.list:
        for title, items in (
            ("undocumented", m.undocumented),
            ("long functions", m.long_functions),
            ("mixins", m.mixins),
            ("McpService(...)", m.service_builds),
        ):
            print(f"\n{title}:")
            print("\n".join(f"  {item}" for item in items) or "  (none)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
