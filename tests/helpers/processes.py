"""Helpers for the tests that check no server process is left: live group members, runtime files, waiting;
and Ctrl+C to a command that must end on it."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

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


def interrupt(child: subprocess.Popen[str], limit: float = 30.0) -> tuple[str, str]:
    """Ctrl+C to ``child`` and its output once it exited; a child still running after ``limit`` s fails the test
    with why: SIGINT ignored or blocked in it (inherited from whatever started the suite), or its stacks
    (SIGABRT: dumped when it was started with ``PYTHONFAULTHANDLER=1``)."""
    child.send_signal(signal.SIGINT)
    try:
        return child.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        why = sigint_disposition(child.pid)
        child.send_signal(signal.SIGABRT)
        try:
            _out, err = child.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            child.kill()
            _out, err = child.communicate()
    pytest.fail(f"{child.args} still ran {limit:.0f} s after Ctrl+C ({why}); its stderr:\n{err[-4000:]}")


def sigint_disposition(pid: int) -> str:
    """Whether SIGINT is ignored or blocked in process ``pid`` (Linux' /proc/PID/status), in words."""
    try:
        fields = dict(
            line.split(":\t", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":\t" in line
        )
    except OSError:
        return "its SIGINT state unknown"
    bit = 1 << (signal.SIGINT - 1)
    states = [
        word for word, key in (("ignored", "SigIgn"), ("blocked", "SigBlk")) if int(fields.get(key, "0"), 16) & bit
    ]
    return f"SIGINT {' and '.join(states)} in it" if states else "SIGINT neither ignored nor blocked in it"
