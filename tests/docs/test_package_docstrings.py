"""Every package's docstring names each of its modules with its job, so the list cannot drift from the code."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "elftia_desktop"
PACKAGES = sorted(p for p in PACKAGE.rglob("*") if (p / "__init__.py").exists() and len(list(p.glob("*.py"))) > 1)


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.relative_to(PACKAGE.parent).as_posix())
def test_the_package_docstring_names_every_module(package: Path) -> None:
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8"))) or ""
    modules = [p.stem for p in package.glob("*.py") if p.name != "__init__.py"]
    subpackages = [p.name for p in package.iterdir() if (p / "__init__.py").exists()]
    missing = [m for m in modules if f"``{m}``" not in doc] + [s for s in subpackages if f"``{s}/``" not in doc]
    assert not missing, f"{package.name}/__init__.py does not say what these are for: {', '.join(sorted(missing))}"
