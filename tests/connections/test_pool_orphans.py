"""No orphans: the runtime file, bounded cleanup, and killing what a killed run left behind."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from elftia_desktop.connections.process_tracker import FILE_PREFIX
from elftia_desktop.connections.service import McpService
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.platform.proc_identity import start_time as process_start_time
from tests.connections.pool_helpers import add_server, stdio_input

CHILD = Path(__file__).resolve().with_name("orphan_child.py")
REPO = Path(__file__).resolve().parents[2]


def _alive(pid: int) -> bool:
    """True for a live, non-zombie process."""
    return process_start_time(pid) is not None


def _wait_dead(pids: list[int], limit: float = 30.0) -> list[int]:
    deadline = time.monotonic() + limit
    alive = [p for p in pids if _alive(p)]
    while alive and time.monotonic() < deadline:
        time.sleep(0.05)
        alive = [p for p in alive if _alive(p)]
    return alive


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL and process groups are POSIX; Windows kills by Job Object")
@pytest.mark.timeout(240)
def test_servers_of_a_killed_run_are_killed_at_next_start(catalog: ServerCatalog, tmp_path: Path) -> None:
    runtime = tmp_path / "runtime"
    child = subprocess.Popen(
        [sys.executable, str(CHILD), str(runtime), str(tmp_path / "child-data"), "2"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env=os.environ | {"PYTHONPATH": str(REPO)},
    )
    try:
        assert child.stdout is not None
        pids = json.loads(child.stdout.readline())
        assert len(pids) == 2  # more than one leftover, each recorded and each killed
        files = list(runtime.glob(f"{FILE_PREFIX}*.json"))
        assert len(files) == 1
        recorded = {s["pid"] for s in json.loads(files[0].read_text())["servers"]}
        assert recorded == set(pids)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    # The servers ignore the closed stdin: without the check at start they would live on.
    assert all(_alive(pid) for pid in pids)

    service = McpService(catalog, runtime_dir=runtime)

    asyncio.run(service.start())  # building it does no I/O; start() stops the leftovers
    assert sorted(e.pid for e in service.leftovers_killed) == sorted(pids)
    assert _wait_dead(pids) == []
    assert list(runtime.glob(f"{FILE_PREFIX}*.json")) == []


@pytest.mark.timeout(60)
def test_a_reused_pid_is_not_killed(catalog: ServerCatalog, tmp_path: Path) -> None:
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    bystander = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        entry = {"server_id": "x", "pid": bystander.pid, "pgid": bystander.pid, "start_time": "1", "argv": ["sleep"]}
        dead_owner = {"ownerPid": 2**22 + 7, "ownerStartTime": "1", "servers": [entry]}
        (runtime / f"{FILE_PREFIX}999999.json").write_text(json.dumps(dead_owner))
        service = McpService(catalog, runtime_dir=runtime)
        asyncio.run(service.start())  # building it does no I/O; start() stops the leftovers
        assert service.leftovers_killed == []
        assert bystander.poll() is None
        assert list(runtime.glob(f"{FILE_PREFIX}*.json")) == []
    finally:
        bystander.kill()
        bystander.wait()


@pytest.mark.anyio
@pytest.mark.timeout(120)
async def test_cleanup_is_bounded_and_clears_the_runtime_file(service: McpService, tmp_path: Path) -> None:
    polite = await add_server(service, stdio_input("polite", "basic"))
    stubborn = await add_server(service, stdio_input("stubborn", "basic", extra_args=("--linger",)))
    pids = [
        (await service.call_tool(sid, "pid", {})).structured_content["result"]  # type: ignore[index]
        for sid in (polite, stubborn)
    ]
    files = list((tmp_path / "runtime").glob(f"{FILE_PREFIX}*.json"))
    assert len(files) == 1
    started = time.monotonic()
    await service.cleanup()
    assert time.monotonic() - started < 20
    assert await asyncio.to_thread(_wait_dead, pids) == []
    assert list((tmp_path / "runtime").glob(f"{FILE_PREFIX}*.json")) == []
