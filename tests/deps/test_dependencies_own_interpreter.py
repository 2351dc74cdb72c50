"""Dependencies → Python: servers that run on the app's own interpreter (the built-in Clock and Notes) are
not listed as needing the system's Python; the row says they run on Elftia's own."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.results import OwnInterpreter
from elftia_desktop.bridge.routes.dependencies import runtime_view
from elftia_desktop.core.models import DependencyCheckResult, McpServerRecord
from elftia_desktop.deps.checker import DependencyChecker
from elftia_desktop.deps.installer import DependencyInstaller
from elftia_desktop.deps.overview import RuntimeRow, runtime_rows, servers_by_runtime
from elftia_desktop.deps.requirements import runtime_for

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


def test_the_python_card_says_no_server_needs_it_only_when_none_runs_on_it(qtbot: QtBot) -> None:
    """The walk's find: "Needed by: no configured server · Clock run on Elftia's own Python" said both."""
    from elftia_desktop.ui.widgets.runtime_card import RuntimeCard  # Qt only for this test

    python = runtime_for("python3")
    assert python is not None
    check = DependencyCheckResult(command="python3", installed=True, meets_minimum=True, installable=False)

    def details(needed_by: list[str], own: list[str]) -> str:
        row = RuntimeRow(python, check, managed=False, can_install=False, needed_by=needed_by, own_interpreter=own)
        card = RuntimeCard(runtime_view(row))
        qtbot.addWidget(card)
        return card._details_html(card.row)

    only_own = details([], ["Clock"])
    assert "Needed by" not in only_own and "Clock run on Elftia's own Python" in only_own
    assert "<b>Needed by:</b> no configured server" in details([], [])
    both = details(["files"], ["Clock"])
    assert "<b>Needed by:</b> files" in both and "Clock run on Elftia's own Python" in both
