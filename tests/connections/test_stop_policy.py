"""Issue 11: closing a stdio server follows the spec's order (stdin, SIGTERM, SIGKILL) without a fixed wait.

A server that exits on EOF is not signalled; one that saves its state on EOF keeps the time
it works; one that sits idle after EOF gets SIGTERM (no grace waited out); one that ignores
SIGTERM too is SIGKILLed with its whole group.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession

from elftia_desktop.connections.stdio_process import StdioProcess, open_stdio
from tests.gateway.gateway_helpers import poll
from tests.helpers.processes import STUBBORN_WRAPPER, live_members

SERVERS = Path(__file__).resolve().parents[1] / "servers"
pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


async def run_and_close(argv: list[str], env: dict[str, str] | None = None) -> StdioProcess:
    """Start ``argv``, initialize, list its tools and close; the process as it ended."""
    lines: list[str] = []
    async with (
        open_stdio(argv, dict(os.environ) | (env or {}), None, lines.append) as (read, write, process),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        await session.list_tools()
    assert process.exited.is_set(), lines
    return process


async def test_a_server_that_exits_on_eof_gets_no_signal() -> None:
    process = await run_and_close([sys.executable, str(SERVERS / "basic.py")])
    assert process.returncode == 0


async def test_a_server_saving_its_state_on_eof_gets_to_finish(tmp_path: Path) -> None:
    state = tmp_path / "state.txt"
    process = await run_and_close([sys.executable, str(SERVERS / "flush_on_eof.py")], {"FLUSH_FILE": str(state)})
    assert process.returncode == 0
    lines = state.read_text().splitlines()
    assert lines[-1] == "complete" and len(lines) > 2


async def test_an_idle_server_that_ignores_eof_is_asked_with_sigterm() -> None:
    process = await run_and_close([sys.executable, str(SERVERS / "basic.py"), "--linger"])
    assert process.returncode == -signal.SIGTERM


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
async def test_a_server_that_ignores_sigterm_is_killed_with_its_group() -> None:
    process = await run_and_close(["sh", str(STUBBORN_WRAPPER), sys.executable])
    assert process.returncode == -signal.SIGKILL
    assert live_members(process.pid) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
async def test_a_server_that_exits_leaving_a_child_on_its_pipes_is_noticed_at_once(tmp_path: Path) -> None:
    """The exit is seen by its return code even though a child still holds stdout and stderr open."""
    script = "sleep 600 & echo started >&2; exit 3"
    lines: list[str] = []
    async with open_stdio(["sh", "-c", script], dict(os.environ), None, lines.append) as (_read, _write, process):
        with anyio.fail_after(30):
            await process.exited.wait()
        assert process.returncode == 3
    # the child in its group is killed when the connection closes (the SIGKILL lands a moment later)
    assert await poll(lambda: live_members(process.pid) == [], limit=30)
