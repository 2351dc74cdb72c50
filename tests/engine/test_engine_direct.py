"""Direct connections to built-in servers and the process tracker: tools work, and no server is left behind."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from elftia_desktop.connections.process_tracker import ProcessTracker
from elftia_desktop.core.errors import ServerStartFailed
from elftia_desktop.engine.direct_adapter import DirectServerSpec, load_direct_mcp_tools, open_direct_server
from elftia_desktop.engine.registry import ToolRegistry
from elftia_desktop.engine.tool import ITool
from tests.engine.engine_helpers import await_gone, is_alive, wait_gone

HERE = Path(__file__).parent


@pytest.fixture
def tracker(isolated_data_dir: Path) -> ProcessTracker:
    """The app's one tracker, on the test's runtime folder."""
    return ProcessTracker.for_dir(isolated_data_dir / "runtime")


def _stubborn(tmp_path: Path) -> tuple[DirectServerSpec, Path]:
    pid_file = tmp_path / "grandchild.pid"
    spec = DirectServerSpec(
        name="stubborn",
        command=sys.executable,
        args=[str(HERE / "stubborn_server.py")],
        env={"GRANDCHILD_PID_FILE": str(pid_file)},
    )
    return spec, pid_file


@pytest.mark.anyio
async def test_builtin_tools_load_register_and_run(tracker: ProcessTracker) -> None:
    tools, connections = await load_direct_mcp_tools(
        [DirectServerSpec.builtin("clock"), DirectServerSpec.builtin("notes")], tracker=tracker
    )
    try:
        registry = ToolRegistry()
        registry.register_all(tools)
        assert "clock__get_current_time" in registry
        assert "notes__create_note" in registry
        assert all(isinstance(t, ITool) for t in tools)
        assert registry.get("clock__convert_time").parameters["type"] == "object"
        assert len(tracker.tracked()) == 2

        text = await registry.execute("clock__get_current_time", {"timezone": "Asia/Tokyo"})
        assert json.loads(text)["utc_offset"] == "+09:00"
        created = json.loads(await registry.execute("notes__create_note", {"title": "From the engine"}))
        found = await registry.execute("notes__search_notes", {"query": "engine"})
        assert created["id"] in found
        error = await registry.execute("clock__get_current_time", {"timezone": "Mars/Olympus"})
        assert error.startswith("Error: tool clock__get_current_time reported an error: ")
        assert "unknown time zone 'Mars/Olympus'" in error
        pids = [c.pid for c in connections]
        assert all(pid is not None and is_alive(pid) for pid in pids)
    finally:
        await tracker.close_all()
    assert tracker.tracked() == []
    for pid in pids:
        assert pid is not None
        assert await await_gone(pid)


@pytest.mark.anyio
async def test_one_failing_server_does_not_stop_the_others(tmp_path: Path, tracker: ProcessTracker) -> None:
    broken = DirectServerSpec(
        name="broken", command=sys.executable, args=["-c", "import sys; print('boom', file=sys.stderr); sys.exit(3)"]
    )
    missing = DirectServerSpec(name="missing", command=str(tmp_path / "no-such-program"))
    tools, connections = await load_direct_mcp_tools(
        [broken, DirectServerSpec.builtin("clock"), missing], tracker=tracker
    )
    try:
        assert [c.server_name for c in connections] == ["clock"]
        assert tools and all(t.name.startswith("clock__") for t in tools)
        assert len(tracker.tracked()) == 1
    finally:
        await tracker.close_all()


@pytest.mark.anyio
async def test_start_failure_says_why_with_the_servers_output(tmp_path: Path) -> None:
    spec = DirectServerSpec(
        name="broken",
        command=sys.executable,
        args=["-c", "import sys; print('no config found', file=sys.stderr); sys.exit(3)"],
    )
    tracker = ProcessTracker.for_dir(tmp_path / "runtime")
    with pytest.raises(ServerStartFailed) as failed:
        await open_direct_server(spec, tracker=tracker, connect_timeout=60)
    # the pool's own wording: direct servers start through the same connection class
    assert str(failed.value).startswith("broken: the server process exited with code 3")
    assert "no config found" in str(failed.value)
    assert tracker.tracked() == [] and tracker.pids() == []


@pytest.mark.skipif(sys.platform == "win32", reason="process groups (getpgid) are POSIX")
@pytest.mark.anyio
async def test_close_kills_a_server_that_will_not_exit_and_its_grandchild(
    tmp_path: Path, tracker: ProcessTracker
) -> None:
    spec, pid_file = _stubborn(tmp_path)
    tools, [connection] = await load_direct_mcp_tools([spec], tracker=tracker)
    assert await tools[0].execute({}) == "pong"
    server_pid, grandchild = connection.pid, int(pid_file.read_text())
    assert server_pid is not None and is_alive(server_pid) and is_alive(grandchild)
    assert os.getpgid(grandchild) == server_pid

    await tracker.close_connection(connection)

    assert await await_gone(server_pid)
    assert await await_gone(grandchild)
    assert tracker.tracked() == []


@pytest.mark.anyio
async def test_kill_all_sync_kills_every_group_at_once(tmp_path: Path, tracker: ProcessTracker) -> None:
    spec, pid_file = _stubborn(tmp_path)
    _tools, connections = await load_direct_mcp_tools([spec, DirectServerSpec.builtin("clock")], tracker=tracker)
    pids = [c.pid for c in connections]
    grandchild = int(pid_file.read_text())

    assert tracker.kill_all_sync() == 2

    for pid in [*pids, grandchild]:
        assert pid is not None
        assert await await_gone(pid)
    for connection in connections:
        await connection.aclose()  # the owner tasks notice the dead servers and end


def _run_holder(mode: str) -> tuple[subprocess.Popen[str], list[int]]:
    holder = subprocess.Popen(
        [sys.executable, str(HERE / "direct_holder.py"), mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=HERE.parent.parent,
    )
    assert holder.stdout is not None
    line = holder.stdout.readline()
    assert line.startswith("PIDS "), f"holder said {line!r}; stderr: {holder.stderr.read() if holder.poll() else ''}"
    pids = [int(p) for p in line.split()[1:]]
    tools = holder.stdout.readline().split()
    assert tools[0] == "TOOLS" and int(tools[1]) > 10
    return holder, pids


def test_interpreter_exit_kills_servers_that_were_never_closed() -> None:
    holder, pids = _run_holder("exit")
    assert holder.wait(timeout=60) == 0
    assert len(pids) == 2
    assert all(wait_gone(pid) for pid in pids)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals to a process")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_kills_the_servers_then_the_previous_handler_runs(signum: int) -> None:
    holder, pids = _run_holder("wait")
    assert all(is_alive(pid) for pid in pids)
    holder.send_signal(signum)
    try:
        code = holder.wait(timeout=60)
    except subprocess.TimeoutExpired:
        holder.send_signal(signal.SIGUSR1)  # its threads' stacks to stderr
        with contextlib.suppress(subprocess.TimeoutExpired):
            holder.wait(timeout=2)
        holder.kill()
        for pid in pids:  # no server left behind by a failed test
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        _, said = holder.communicate()
        pytest.fail(f"the holder did not end within 60 s of the signal; it said:\n{said}")
    # SIGTERM: the default action runs after our handler; SIGINT: asyncio's handler raises
    # KeyboardInterrupt, which Python ends by re-raising SIGINT. Either way the holder dies of the signal.
    assert code == -signum
    assert all(wait_gone(pid) for pid in pids)


@pytest.mark.anyio
async def test_colliding_tool_names_get_a_hash_and_both_work(
    tmp_path: Path, tracker: ProcessTracker, builtin_servers: list[str]
) -> None:
    # two servers whose names sanitize alike: "my clock" and "my-clock" both give my_clock__... (naming: in memory)
    specs = [
        DirectServerSpec(name=name, command=sys.executable, args=["-m", "elftia_desktop.builtin_servers.clock"])
        for name in ("my clock", "my.clock")
    ]
    tools, servers = await load_direct_mcp_tools(specs, tracker=tracker)
    try:
        assert len(servers) == 2 and builtin_servers == ["clock", "clock"]
        now = [t for t in tools if t.tool.name == "get_current_time"]
        assert len({t.name for t in now}) == 2
        assert all(t.name.startswith("my_clock__get_current_time_") and len(t.name) <= 64 for t in now)
        for tool in now:
            assert json.loads(await tool.execute({"timezone": "UTC"}))["utc_offset"] == "+00:00"
    finally:
        await tracker.close_all()
