"""Issue 11: what a killed app left running is stopped at the next start, and nothing else is.

A leftover is recognised by pid plus start time, never by command line: a leader that exec'd
into another program is still ours, a group whose leader died is found through its members
(their group and start times), and a pid that now belongs to someone else is not signalled.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from elftia_desktop.connections.process_tracker import FILE_PREFIX
from elftia_desktop.connections.service import McpService
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.platform.proc_identity import start_time
from tests.helpers.processes import (
    REPO,
    STUBBORN_WRAPPER,
    alive,
    cmdline,
    kill_group_now,
    live_members,
    runtime_records,
    wait_for,
)

HOLDER = Path(__file__).with_name("leftover_holder.py")
GRANDPARENT = REPO / "tests" / "engine" / "stubborn_server.py"
pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
    pytest.mark.timeout(120),
]


class KilledHolder:
    """Start a server from a holder process, then SIGKILL the holder (no exit hook runs)."""

    def __init__(self, runtime: Path, data: Path, argv: list[str], env: dict[str, str] | None = None) -> None:
        config = {"command": argv[0], "args": argv[1:], "env": env or {}}
        holder = subprocess.Popen(
            [sys.executable, str(HOLDER), str(runtime), str(data), json.dumps(config)],
            stdout=subprocess.PIPE,
            text=True,
            cwd=REPO,
            env=os.environ | {"PYTHONPATH": str(REPO)},
        )
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "READY"
        [record] = runtime_records(runtime)
        self.pgid = int(str(record["pgid"]))
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=30)


@pytest.fixture
def groups() -> Iterator[list[int]]:
    """Process groups to SIGKILL after the test, whatever happened."""
    found: list[int] = []
    yield found
    for pgid in found:
        kill_group_now(pgid)


def test_a_leader_that_execd_is_stopped(catalog: ServerCatalog, tmp_path: Path, groups: list[int]) -> None:
    runtime = tmp_path / "runtime"
    leftover = KilledHolder(runtime, tmp_path / "holder", ["sh", str(STUBBORN_WRAPPER), sys.executable])
    groups.append(leftover.pgid)
    # The holder's death closed the server's stdin: the server ended, the wrapper exec'd into sleep.
    assert wait_for(lambda: cmdline(leftover.pgid)[:1] == ["sleep"]), cmdline(leftover.pgid)

    service = McpService(catalog, runtime_dir=runtime)
    assert live_members(leftover.pgid)  # building the service does no I/O: the leftover still runs
    asyncio.run(service.start())  # start() stops it, in a worker thread

    assert [e.pid for e in service.leftovers_killed] == [leftover.pgid]
    assert wait_for(lambda: not live_members(leftover.pgid))
    assert list(runtime.glob(f"{FILE_PREFIX}*.json")) == []


def test_a_dead_leaders_live_group_member_is_stopped(catalog: ServerCatalog, tmp_path: Path, groups: list[int]) -> None:
    runtime = tmp_path / "runtime"
    pid_file = tmp_path / "grandchild.pid"
    leftover = KilledHolder(
        runtime, tmp_path / "holder", [sys.executable, str(GRANDPARENT)], {"GRANDCHILD_PID_FILE": str(pid_file)}
    )
    groups.append(leftover.pgid)
    grandchild = int(pid_file.read_text())
    os.kill(leftover.pgid, signal.SIGKILL)  # the leader dies; its child lives on in the group
    assert wait_for(lambda: not alive(leftover.pgid))
    assert live_members(leftover.pgid) == [grandchild]

    service = McpService(catalog, runtime_dir=runtime)

    asyncio.run(service.start())  # building it does no I/O; start() stops the leftovers

    assert [e.pid for e in service.leftovers_killed] == [leftover.pgid]
    assert wait_for(lambda: not alive(grandchild))


def test_a_recycled_pid_and_its_group_are_not_signalled(catalog: ServerCatalog, tmp_path: Path) -> None:
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    # A stranger leading its own group, with a child in it, holds the pid of the record.
    stranger = subprocess.Popen(["sh", "-c", "sleep 60 & wait"], start_new_session=True)
    try:
        assert wait_for(lambda: len(live_members(stranger.pid)) == 2)
        stamp = start_time(stranger.pid)
        assert stamp is not None
        record = {"server_id": "x", "pid": stranger.pid, "pgid": stranger.pid, "argv": ["sh"]}
        record["start_time"] = str(int(stamp) - 1)  # our server started earlier: the pid was reused since
        dead_owner = {"ownerPid": 2**22 + 7, "ownerStartTime": "1", "servers": [record]}
        (runtime / f"{FILE_PREFIX}999999.json").write_text(json.dumps(dead_owner))

        service = McpService(catalog, runtime_dir=runtime)

        asyncio.run(service.start())  # building it does no I/O; start() stops the leftovers

        assert service.leftovers_killed == []
        assert stranger.poll() is None
        assert len(live_members(stranger.pid)) == 2
        assert list(runtime.glob(f"{FILE_PREFIX}*.json")) == []
    finally:
        kill_group_now(stranger.pid)
        stranger.wait(timeout=30)


def test_a_file_of_an_earlier_boot_signals_nothing(catalog: ServerCatalog, tmp_path: Path) -> None:
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    bystander = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        stamp = start_time(bystander.pid)
        record = {"server_id": "x", "pid": bystander.pid, "pgid": bystander.pid, "start_time": stamp, "argv": []}
        earlier_boot = {"ownerPid": 2**22 + 7, "ownerStartTime": "1", "bootId": "not-this-boot", "servers": [record]}
        (runtime / f"{FILE_PREFIX}999998.json").write_text(json.dumps(earlier_boot))

        service = McpService(catalog, runtime_dir=runtime)

        asyncio.run(service.start())  # building it does no I/O; start() stops the leftovers

        assert service.leftovers_killed == []
        assert bystander.poll() is None
        assert list(runtime.glob(f"{FILE_PREFIX}*.json")) == []
    finally:
        bystander.kill()
        bystander.wait(timeout=30)
