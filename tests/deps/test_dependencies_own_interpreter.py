"""Dependencies → Python: servers that run on the app's own interpreter (the built-in Clock and Notes) are
not listed as needing the system's Python; the row says they run on Elftia's own."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from elftia_desktop.bridge.results import OwnInterpreter
from elftia_desktop.bridge.routes.dependencies import runtime_view
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.deps.checker import DependencyChecker
from elftia_desktop.deps.installer import DependencyInstaller
from elftia_desktop.deps.overview import runtime_rows, servers_by_runtime

pytestmark = pytest.mark.anyio


def stdio(name: str, command: str, *args: str) -> McpServerRecord:
    return McpServerRecord.model_validate({"name": name, "type": "stdio", "config": {"command": command, "args": args}})


def test_own_interpreter_servers_need_no_python() -> None:
    records = [
        stdio("Clock", sys.executable, "-m", "elftia_desktop.builtin_servers.clock"),
        stdio("Notes", sys.executable, "-m", "elftia_desktop.builtin_servers.notes"),
        stdio("Script", "python3", "server.py"),
    ]
    users = servers_by_runtime(records)
    assert users["python"] == ["Script"]
    assert users["own-python"] == ["Clock", "Notes"]


async def test_the_python_row_names_the_own_interpreter(tmp_path: Path) -> None:
    records = [stdio("Clock", sys.executable, "-m", "elftia_desktop.builtin_servers.clock")]
    installer = DependencyInstaller(tools_dir=tmp_path / "tools")
    rows = await runtime_rows(DependencyChecker(tools_dir=tmp_path / "tools"), installer, records)
    (python,) = [runtime_view(row) for row in rows if row.runtime.name == "python"]
    assert python.needed_by == ()
    assert python.own_interpreter == OwnInterpreter(("Clock",), sys.executable)
