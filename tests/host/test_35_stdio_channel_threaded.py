"""Issue 35: the stdio gateway's line channel on both of its paths, in a real child process.

``stdio_channel(system)`` takes the OS as a value: ``win32`` reads stdin with a thread and writes
stdout directly (Windows' loop cannot wait on an inherited pipe), ``linux`` waits on both pipes in
the loop. The child echoes each line it reads until end of input, then says so.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

CHILD = """
import asyncio, sys
from elftia_desktop.host.stdio_link import stdio_channel

async def main(system):
    async with stdio_channel(system) as channel:
        print("stray print goes to stderr")
        while (line := await channel.read()) is not None:
            channel.write(b"echo " + line)
            await channel.drain()
        channel.write(b"end of input")
        await channel.drain()

asyncio.run(main(sys.argv[1]))
"""

SYSTEMS = [
    "win32",
    pytest.param("linux", marks=pytest.mark.skipif(sys.platform == "win32", reason="the loop reads POSIX pipes")),
]


@pytest.mark.parametrize("system", SYSTEMS)
def test_lines_round_trip_and_end_of_input_ends_the_channel(system: str) -> None:
    big = json.dumps({"jsonrpc": "2.0", "id": 1, "params": {"blob": "x" * 200_000}})
    lines = ['{"jsonrpc": "2.0", "id": 0, "method": "ping"}', "", big, "last"]
    done = subprocess.run(
        [sys.executable, "-c", CHILD, system],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"echo {line}" for line in lines if line] + ["end of input"]
    assert "stray print goes to stderr" in done.stderr
