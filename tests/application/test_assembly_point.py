"""One assembly point: nothing in the app but ``application/services.py`` builds ``McpService``."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "elftia_desktop"
ASSEMBLY_POINT = PACKAGE / "application" / "services.py"


def _names_mcp_service(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "McpService") or (
        isinstance(node, ast.Attribute) and node.attr == "McpService"
    )


def _constructions(path: Path) -> list[int]:
    """Lines calling ``McpService(...)`` or passing it on to be called (``to_thread(McpService, ...)``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and any(_names_mcp_service(n) for n in [node.func, *node.args])
    ]


def test_only_the_assembly_point_builds_mcp_service() -> None:
    found = {
        str(path.relative_to(PACKAGE)): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if (lines := _constructions(path))
    }
    assert list(found) == [str(ASSEMBLY_POINT.relative_to(PACKAGE))], found
    assert len(found[str(ASSEMBLY_POINT.relative_to(PACKAGE))]) == 1
