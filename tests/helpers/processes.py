"""Helpers for the tests that check no server process is left: live group members, runtime files, waiting."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

from elftia_desktop.connections.process_tracker import FILE_PREFIX
from elftia_desktop.platform.proc_identity import group_members, read_stat, start_time
from tests.helpers.cli_runner import run_cli

REPO = Path(__file__).resolve().parents[2]
STUBBORN_WRAPPER = REPO / "tests" / "servers" / "stubborn_wrapper.sh"


def live_members(pgid: int) -> list[int]:
    """Pids of the live (non-zombie) processes of a process group."""
    return [pid for pid, _stamp in group_members(pgid)]


def live_groups(groups: list[int]) -> set[int]:
    """Which of ``groups`` still have a live process (one pass over /proc)."""
    wanted, found = set(groups), set()
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            stat = read_stat(int(entry.name))
            if stat is not None and stat.pgid in wanted:
                found.add(stat.pgid)
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie counts as gone)."""
    return start_time(pid) is not None


def wait_for(condition: Callable[[], bool], limit: float = 30.0) -> bool:
    """Poll ``condition`` until it holds or ``limit`` (generous) seconds pass; its last value."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def runtime_records(runtime: Path) -> list[dict[str, object]]:
    """Every server record in the runtime files of ``runtime``."""
    records: list[dict[str, object]] = []
    for path in runtime.glob(f"{FILE_PREFIX}*.json"):
        records.extend(json.loads(path.read_text(encoding="utf-8"))["servers"])
    return records


def cmdline(pid: int) -> list[str]:
    """The command line of a live process ([] when gone)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode() for part in raw.split(b"\0") if part]


def add_stubborn_server(data_dir: Path, name: str = "stubborn") -> None:
    """Add (trusted) the sh-wrapped server that ignores SIGTERM and execs ``sleep`` after its stdin closes."""
    added = run_cli("add", name, "--trust", "--", "sh", STUBBORN_WRAPPER, sys.executable, data_dir=data_dir, cwd=REPO)
    assert added.returncode == 0, added.stderr


def kill_group_now(pgid: int) -> None:
    """Never leave a process behind, whatever the test found."""
    with contextlib.suppress(OSError):
        os.killpg(pgid, signal.SIGKILL)
