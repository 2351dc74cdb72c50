"""The runtime file of started stdio servers, and killing what an earlier run left behind.

Each running ``McpService`` keeps ``mcp-servers-<pid>.json`` in the runtime folder: its own
pid and start time, and for every live server the pid (= process group), start time and
command line. At start, files of service processes that are gone are read, and every server
group still alive is killed, but only after checking the process is the same one (the start
time and the command line match), since pids are reused. A file whose owner still runs
(another window, the CLI) is left alone.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import signal
import sys
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from elftia_desktop.core.atomic_file import atomic_write_text

log = logging.getLogger(__name__)

FILE_PREFIX = "mcp-servers-"


@dataclass
class TrackedProcess:
    """One started server process."""

    server_id: str
    pid: int
    pgid: int
    start_time: str
    argv: list[str]


def process_start_time(pid: int) -> str | None:
    """A stable start-time stamp of a live process (Linux: /proc/<pid>/stat field 22), or None."""
    if sys.platform.startswith("linux"):
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
                stat = handle.read()
        except OSError:
            return None
        fields = stat.rsplit(")", 1)[-1].split()
        return fields[19] if len(fields) > 19 and fields[0] != "Z" else None
    return _ps_field(pid, "lstart=")


def process_argv(pid: int) -> list[str] | None:
    """The command line of a live process, or None."""
    if sys.platform.startswith("linux"):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                raw = handle.read()
        except OSError:
            return None
        return [part.decode("utf-8", "replace") for part in raw.split(b"\0") if part]
    text = _ps_field(pid, "command=")
    return text.split() if text else None


def _ps_field(pid: int, field: str) -> str | None:
    import subprocess  # only on non-Linux systems, from a worker thread

    try:
        out = subprocess.run(["ps", "-o", field, "-p", str(pid)], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def same_process(entry: TrackedProcess) -> bool:
    """True when ``entry.pid`` is still the process that was recorded."""
    if process_start_time(entry.pid) != entry.start_time:
        return False
    argv = process_argv(entry.pid)
    if argv is None:
        return False
    if argv == entry.argv:
        return True
    # A script started through its shebang shows its interpreter first (``node /usr/bin/npx ...``).
    return bool(entry.argv) and os.path.basename(entry.argv[0]) in " ".join(argv)


class ProcessTracker:
    """Records this service's server processes in its runtime file."""

    def __init__(self, runtime_dir: Path, tag: str = "") -> None:
        """``tag`` tells apart two trackers of one process (the pool's and the engine's direct sessions)."""
        self.runtime_dir = runtime_dir
        self.path = runtime_dir / f"{FILE_PREFIX}{os.getpid()}{'-' + tag if tag else ''}.json"
        self._owner_start = process_start_time(os.getpid()) or ""
        self._entries: dict[int, TrackedProcess] = {}
        self._lock = threading.Lock()
        atexit.register(self.kill_all)

    def add(self, server_id: str, pid: int, argv: list[str]) -> None:
        """Record a started server (its pid is its process group)."""
        start = process_start_time(pid)
        if start is None:
            return
        with self._lock:
            self._entries[pid] = TrackedProcess(server_id, pid, pid, start, list(argv))
            self._write()

    def remove(self, pid: int) -> None:
        """Forget a server that has exited."""
        with self._lock:
            if self._entries.pop(pid, None) is not None:
                self._write()

    def kill_all(self) -> None:
        """SIGKILL every recorded group still alive (the exit hook, when ``cleanup`` did not run)."""
        with self._lock:
            for entry in list(self._entries.values()):
                if same_process(entry):
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(entry.pgid, signal.SIGKILL)
            self._entries.clear()
            self._write()

    def pids(self) -> list[int]:
        """The recorded server pids."""
        return list(self._entries)

    def _write(self) -> None:
        data: dict[str, Any] = {
            "ownerPid": os.getpid(),
            "ownerStartTime": self._owner_start,
            "servers": [asdict(e) for e in self._entries.values()],
        }
        try:
            self.runtime_dir.mkdir(parents=True, exist_ok=True)
            if self._entries:
                # No fsync: it is written on the service loop, and no server outlives a power loss.
                atomic_write_text(self.path, json.dumps(data, indent=2), durable=False)
            else:
                self.path.unlink(missing_ok=True)
        except OSError as exc:
            log.warning("cannot write the runtime file %s: %s", self.path, exc)


def _owner_alive(data: dict[str, Any]) -> bool:
    pid = data.get("ownerPid")
    return isinstance(pid, int) and pid != os.getpid() and process_start_time(pid) == data.get("ownerStartTime")


def kill_leftovers(runtime_dir: Path) -> list[TrackedProcess]:
    """Kill server groups recorded by service processes that are gone; returns what was killed."""
    killed: list[TrackedProcess] = []
    if not runtime_dir.is_dir():
        return killed
    for path in runtime_dir.glob(f"{FILE_PREFIX}*.json"):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        if not isinstance(data, dict) or _owner_alive(data):
            continue
        for raw in data.get("servers", []):
            try:
                entry = TrackedProcess(**raw)
            except TypeError:
                continue
            if same_process(entry):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(entry.pgid, signal.SIGKILL)
                    killed.append(entry)
                    log.info("killed server process group %d left by an earlier run: %s", entry.pgid, entry.argv)
        with contextlib.suppress(OSError):
            path.unlink()
    return killed
