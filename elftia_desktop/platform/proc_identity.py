"""Who a process is, and signalling only the process that was meant: pid plus start time.

A pid alone names a process only while it lives: once it is reaped the number is free for a
stranger. The start time does not change across ``exec`` and differs for a reused pid, so
``(pid, start time)`` identifies a process for good (with the boot id, across reboots too).

Linux reads ``/proc`` (``stat`` field 22, the start time in clock ticks since boot) and signals
through a pidfd, so the process checked is the process signalled. macOS and other POSIX systems
ask ``ps`` (``lstart``, one-second resolution). Windows has no process groups here: nothing is
found and nothing is signalled.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from elftia_desktop.platform.groups import HARD_KILL

LINUX = sys.platform.startswith("linux") and os.path.isdir("/proc/self")
"""Whether ``/proc`` answers (checked once)."""
POSIX = sys.platform != "win32"


@dataclass(frozen=True)
class ProcStat:
    """What ``/proc/<pid>/stat`` says about a live process."""

    state: str
    pgid: int
    start_time: str
    cpu_ticks: int


def read_stat(pid: int) -> ProcStat | None:
    """The state, group, start time and CPU ticks of a live (non-zombie) process; Linux only."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return None
    fields = text.rsplit(")", 1)[-1].split()
    if len(fields) < 20 or fields[0] in ("Z", "X"):
        return None
    return ProcStat(fields[0], int(fields[2]), fields[19], int(fields[11]) + int(fields[12]))


def start_time(pid: int) -> str | None:
    """A stamp of when ``pid`` started (stable across ``exec``), or None when it is not running."""
    if LINUX:
        stat = read_stat(pid)
        return stat.start_time if stat is not None else None
    if not POSIX or pid <= 0:
        return None
    rows = _ps(["-p", str(pid)])
    return rows[0][2] if rows else None


def boot_id() -> str:
    """This boot's id (Linux), so that start times of an earlier boot are never compared."""
    with contextlib.suppress(OSError):
        return Path("/proc/sys/kernel/random/boot_id").read_text(encoding="ascii").strip()
    return ""


def group_members(pgid: int) -> list[tuple[int, str]]:
    """``(pid, start time)`` of every live process in the group ``pgid``."""
    if LINUX:
        members = []
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                stat = read_stat(int(entry.name))
                if stat is not None and stat.pgid == pgid:
                    members.append((int(entry.name), stat.start_time))
        return members
    if not POSIX:
        return []
    return [(pid, stamp) for pid, group, stamp in _ps(["-A"]) if group == pgid]


def _ps(selection: list[str]) -> list[tuple[int, int, str]]:
    """``(pid, pgid, lstart)`` rows from ``ps`` (POSIX without /proc; called from a worker thread)."""
    try:
        out = subprocess.run(
            ["ps", *selection, "-o", "pid=,pgid=,lstart="], capture_output=True, text=True, timeout=5, check=False
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    rows = []
    for line in out.splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[0].isdigit() and parts[1].isdigit():
            rows.append((int(parts[0]), int(parts[1]), parts[2].strip()))
    return rows


def signal_if_same(pid: int, stamp: str, sig: int) -> bool:
    """Send ``sig`` to ``pid`` only if it is still the process that started at ``stamp``; whether it was sent."""
    if not POSIX or pid <= 1:
        return False
    pidfd_open = getattr(os, "pidfd_open", None)
    if LINUX and pidfd_open is not None:
        try:
            fd = pidfd_open(pid)
        except OSError:
            return False
        try:  # the pidfd pins the process: the check and the signal see the same one
            if start_time(pid) != stamp:
                return False
            signal.pidfd_send_signal(fd, sig)
            return True
        except OSError:
            return False
        finally:
            os.close(fd)
    if start_time(pid) != stamp:
        return False
    try:
        os.kill(pid, sig)
    except OSError:
        return False
    return True


def kill_if_same(pid: int, stamp: str) -> bool:
    """Kill ``pid`` (SIGKILL) only if it is still the process that started at ``stamp``; whether it was sent."""
    return signal_if_same(pid, stamp, HARD_KILL)


def _io_chars(pid: int) -> int:
    """Bytes the process (all its threads) read and wrote so far (``rchar + wchar``), 0 when unknown."""
    try:
        with open(f"/proc/{pid}/io", encoding="ascii") as handle:
            return sum(int(line.split()[1]) for line in handle if line.startswith(("rchar", "wchar")))
    except (OSError, ValueError, IndexError):
        return 0


def tree_activity(pid: int) -> tuple[int, bool] | None:
    """``(work counter, busy)`` of ``pid`` and its descendants, to tell a server at work from an idle one.

    The counter adds CPU ticks and bytes read and written (of every thread); busy means some
    process of the tree is running or in disk wait. None where /proc is missing.
    """
    if not LINUX:
        return None
    ticks, busy, pending, seen = 0, False, [pid], set()
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        stat = read_stat(current)
        if stat is None:
            continue
        ticks += stat.cpu_ticks + _io_chars(current)
        busy = busy or stat.state in ("R", "D")
        with (
            contextlib.suppress(OSError, ValueError),
            open(f"/proc/{current}/task/{current}/children", encoding="ascii") as handle,
        ):
            pending.extend(int(child) for child in handle.read().split())
    return ticks, busy
