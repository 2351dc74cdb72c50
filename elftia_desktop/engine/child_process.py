"""Find the process the SDK's ``stdio_client`` started, which it does not expose.

``stdio_client`` starts the server in a new session (``start_new_session=True``), so the
server is a direct child of this process and leads its own process group (pgid == pid).
To tell our child from others started at the same time (the connection pool spawns too),
the server's environment carries a unique marker variable: on Linux it is read from
``/proc/<pid>/environ``. Elsewhere on POSIX, ``ps`` lists the children and the one whose
command line matches and that was not there before the spawn is taken.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import sys
from pathlib import Path

MARKER_ENV = "ELFTIA_DIRECT_MCP_MARKER"
"""The environment variable that marks a direct connection's server process."""
HAS_PROC = sys.platform.startswith("linux") and os.path.exists("/proc/self/environ")
"""Whether children can be found through /proc (checked once, at import)."""


def new_marker() -> str:
    """A fresh marker value for one spawn."""
    return secrets.token_hex(8)


def _linux_children() -> list[tuple[int, int]]:
    """(pid, pgid) of this process's children that lead their own group, from /proc."""
    me = os.getpid()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text(encoding="ascii", errors="replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 3 and int(fields[1]) == me and int(fields[2]) == int(entry.name):
            found.append((int(entry.name), int(fields[2])))
    return found


def _linux_find(marker: str) -> int | None:
    needle = f"{MARKER_ENV}={marker}".encode()
    for pid, _pgid in _linux_children():
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            continue
        if needle in environ.split(b"\0"):
            return pid
    return None


async def ps_children(argv: list[str]) -> set[int]:
    """POSIX without /proc: children of this process leading their own group whose command matches ``argv``."""
    proc = await asyncio.create_subprocess_exec(
        "ps", "-A", "-o", "pid=,ppid=,pgid=,command=", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL
    )
    out, _ = await proc.communicate()
    me, wanted = os.getpid(), " ".join(argv)
    pids = set()
    for line in out.decode(errors="replace").splitlines():
        parts = line.split(None, 3)
        if len(parts) == 4 and int(parts[1]) == me and parts[0] == parts[2] and parts[3].strip() == wanted:
            pids.add(int(parts[0]))
    return pids


async def find_child_pid(marker: str, argv: list[str], before: set[int] | None = None) -> int | None:
    """The pid of the server started with ``MARKER_ENV=marker`` (or, without /proc, the new child running ``argv``)."""
    if sys.platform == "win32":
        return None
    if HAS_PROC:
        return await asyncio.to_thread(_linux_find, marker)
    new = await ps_children(argv) - (before or set())
    return max(new) if len(new) >= 1 else None


def uses_ps() -> bool:
    """Whether :func:`find_child_pid` needs the ``before`` snapshot from :func:`ps_children`."""
    return sys.platform != "win32" and not HAS_PROC
