"""How built-in servers are started: ``python -m``, or the frozen app with ``--run-builtin-server``."""

from __future__ import annotations

import subprocess
import sys

import pytest

from elftia_desktop.builtin_servers import launcher
from elftia_desktop.builtin_servers.launcher import RUN_FLAG, builtin_command, maybe_run_builtin_server
from tests.builtin_servers.builtin_helpers import builtin_process_session, call


def test_normal_interpreter_runs_the_module() -> None:
    assert builtin_command("clock") == (sys.executable, ["-m", "elftia_desktop.builtin_servers.clock"])
    assert builtin_command("notes") == (sys.executable, ["-m", "elftia_desktop.builtin_servers.notes"])


def test_frozen_app_runs_itself_with_the_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert builtin_command("notes") == (sys.executable, [RUN_FLAG, "notes"])


def test_unknown_server_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"no built-in server named 'weather'.*clock, notes"):
        builtin_command("weather")


def test_ordinary_arguments_are_left_to_the_app() -> None:
    assert maybe_run_builtin_server(["elftia-desktop"]) is False
    assert maybe_run_builtin_server(["elftia-desktop", "--verbose", RUN_FLAG, "clock"]) is False
    assert maybe_run_builtin_server(["elftia-desktop", "-m", "json.tool"]) is False


def test_flag_without_a_known_name_exits_with_code_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as missing:
        maybe_run_builtin_server(["app", RUN_FLAG])
    assert missing.value.code == 2
    with pytest.raises(SystemExit) as unknown:
        maybe_run_builtin_server(["app", RUN_FLAG, "weather"])
    assert unknown.value.code == 2
    assert "no built-in server named 'weather'" in capsys.readouterr().err


@pytest.mark.parametrize("how", [[RUN_FLAG, "clock"], ["-m", "elftia_desktop.builtin_servers.clock"]])
def test_flag_serves_mcp_on_stdio_without_importing_qt(how: list[str]) -> None:
    """What the frozen app does: the entry point hands over before Qt, and the child speaks MCP."""
    code = (
        "import sys; from elftia_desktop.builtin_servers.launcher import maybe_run_builtin_server; "
        "served = maybe_run_builtin_server(sys.argv); "
        "assert 'PySide6' not in sys.modules; sys.exit(0 if served else 5)"
    )
    init = (
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
        '"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n'
    )
    done = subprocess.run([sys.executable, "-c", code, *how], input=init, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert '"serverInfo":{"name":"clock"' in done.stdout


@pytest.mark.anyio
@pytest.mark.parametrize("name", sorted(launcher.BUILTIN_SERVERS))
async def test_every_builtin_server_starts_and_offers_tools(name: str) -> None:
    async with builtin_process_session(name) as session:
        listing = await session.list_tools()
        assert listing.tools, f"{name} offers no tools"
        if name == "clock":
            assert (await call(session, "day_of_week", day="2024-02-29")) == "Thursday"
