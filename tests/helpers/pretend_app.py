"""A pretend MCP app in a subprocess: the SDK's client on ``elftia-mcp serve`` over stdio, driven by lines.

Usage: ``python -m tests.helpers.pretend_app NAME VERSION`` (its ``clientInfo``). It prints
``READY`` once initialized, then reads commands on stdin:
``call TOOL JSON`` prints ``RESULT <text>`` or ``ERROR <message>``; end of input ends it.
:class:`PretendApp` runs it from a test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


async def _run(name: str, version: str) -> None:
    import anyio
    import mcp_types as types
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp.shared.exceptions import MCPError

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "elftia_desktop.cli", "serve"], env=dict(os.environ)
    )
    info = types.Implementation(name=name, version=version)
    async with stdio_client(params) as (read, write), ClientSession(read, write, client_info=info) as session:
        await session.initialize()
        print("READY", flush=True)
        while line := (await anyio.to_thread.run_sync(sys.stdin.readline)).strip():
            _verb, tool, arguments = line.split(" ", 2)
            try:
                result = await session.call_tool(tool, json.loads(arguments))
            except MCPError as exc:
                print(f"ERROR {exc}", flush=True)
                continue
            texts = [block.text for block in result.content if isinstance(block, types.TextContent)]
            print(("ERROR " if result.is_error else "RESULT ") + " ".join(texts).replace("\n", " "), flush=True)


class PretendApp:
    """The pretend app as a subprocess on ``data_dir`` (``close`` ends it and waits)."""

    def __init__(self, data_dir: Path, name: str, version: str = "1.0") -> None:
        env = dict(os.environ) | {
            "ELFTIA_DATA_DIR": str(data_dir),
            "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
            "PYTHONPATH": str(REPO),
        }
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.helpers.pretend_app", name, version],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            cwd=REPO,
            env=env,
        )
        ready = self._line()
        assert ready == "READY", f"the pretend app said {ready!r}"

    def _line(self) -> str:
        assert self.process.stdout is not None
        return self.process.stdout.readline().strip()

    def call(self, tool: str, arguments: dict[str, object]) -> str:
        """Call ``tool`` through the gateway; ``RESULT <text>`` or ``ERROR <message>``."""
        assert self.process.stdin is not None
        self.process.stdin.write(f"call {tool} {json.dumps(arguments)}\n")
        self.process.stdin.flush()
        return self._line()

    def send_call(self, tool: str, arguments: dict[str, object]) -> None:
        """Start a call without waiting for its answer (read it with :meth:`answer`)."""
        assert self.process.stdin is not None
        self.process.stdin.write(f"call {tool} {json.dumps(arguments)}\n")
        self.process.stdin.flush()

    def answer(self) -> str:
        """The answer of the call started with :meth:`send_call`."""
        return self._line()

    def close(self) -> None:
        """End the app (its gateway closes) and wait for it."""
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


if __name__ == "__main__":
    import anyio

    anyio.run(_run, sys.argv[1], sys.argv[2])
