"""Running short helper programs (``--version`` probes, shells, pip, npm) with a time limit.

Each program runs in its own process group (``platform/groups.py``) so that on timeout the whole tree is killed:
killing only ``sh`` would leave its ``sleep`` (or npm's node) holding the output pipe open.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

from elftia_desktop.platform.groups import kill_process, spawn_options


async def start(
    argv: Sequence[str], env: Mapping[str, str] | None = None, *, merge_stderr: bool = True
) -> asyncio.subprocess.Process:
    """Start ``argv`` with no stdin, stdout piped (stderr merged into it, or dropped), in its own group."""
    return await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT if merge_stderr else asyncio.subprocess.DEVNULL,
        env=dict(env) if env is not None else None,
        limit=1 << 20,
        **spawn_options(),
    )


async def kill_tree(proc: asyncio.subprocess.Process) -> None:
    """Kill ``proc`` and everything it started, then reap it."""
    kill_process(proc)
    await proc.wait()


async def run_capture(argv: Sequence[str], limit: float, *, merge_stderr: bool = True) -> tuple[int, str]:
    """Run ``argv`` to the end; (exit code, output). Raises ``TimeoutError`` after ``limit`` seconds
    (the process tree is killed first) and ``OSError`` when it cannot be started."""
    proc = await start(argv, merge_stderr=merge_stderr)
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), limit)
    except BaseException:
        await asyncio.shield(kill_tree(proc))
        raise
    assert proc.returncode is not None
    return proc.returncode, out.decode(errors="replace")
