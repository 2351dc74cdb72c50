"""Direct (built-in) sessions of an app that was killed outright are stopped at the next start."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from elftia_desktop.connections.process_tracker import kill_leftovers

ROOT = Path(__file__).resolve().parents[2]

HOLDER = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from elftia_desktop.engine.direct_adapter import DirectServerSpec, load_direct_mcp_tools
    from elftia_desktop.connections.process_tracker import ProcessTracker

    async def main():
        tracker = ProcessTracker.for_dir(Path(sys.argv[1]))
        _tools, connections = await load_direct_mcp_tools([DirectServerSpec.builtin("clock")], tracker=tracker)
        print(connections[0].pid, flush=True)
        await asyncio.sleep(600)

    asyncio.run(main())
    """
)


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.timeout(120)
def test_killed_app_leaves_no_direct_server_after_the_next_start(tmp_path: Path) -> None:
    runtime = tmp_path / "runtime"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(runtime)], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert holder.stdout is not None
    server_pid = int(holder.stdout.readline())
    assert alive(server_pid)
    assert list(runtime.glob("mcp-servers-*.json"))

    holder.send_signal(signal.SIGKILL)  # no atexit, no signal handler: the server is orphaned
    holder.wait(timeout=30)
    assert alive(server_pid)

    killed = kill_leftovers(runtime)  # what McpService does when it starts
    assert [entry.pid for entry in killed] == [server_pid]
    for _ in range(200):
        if not alive(server_pid):
            break
        asyncio.run(asyncio.sleep(0.05))
    assert not alive(server_pid)
    assert not list(runtime.glob("*.json"))
    if alive(server_pid):  # pragma: no cover - never leave a process behind
        os.kill(server_pid, signal.SIGKILL)
