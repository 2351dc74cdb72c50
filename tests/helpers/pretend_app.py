"""A pretend MCP app: the SDK's client, in a thread of the test's process, on an ``elftia-mcp serve`` subprocess.

The gateway (``serve``) is the real process an app would start, with the app's ``clientInfo``; only
the app's side runs in the test's process (an event loop of its own in a thread, so sync and Qt tests
can drive it): no Python start and SDK import per app. ``call`` waits for its answer; ``send_call``
starts one and ``answer`` waits for the answers in the order the calls were sent.
"""

from __future__ import annotations

import contextlib
import os
import sys
import uuid
from collections.abc import AsyncIterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import anyio.from_thread
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

REPO = Path(__file__).resolve().parents[2]
MARKER = "ELFTIA_TEST_PRETEND_APP"
"""An environment variable naming each app's gateway, so the test can find its process."""


@contextlib.asynccontextmanager
async def _session(params: StdioServerParameters, info: types.Implementation) -> AsyncIterator[ClientSession]:
    """An initialized client session on the gateway subprocess (closed, with the gateway, at the end)."""
    async with stdio_client(params) as (read, write), ClientSession(read, write, client_info=info) as session:
        await session.initialize()
        yield session


class PretendApp:
    """The pretend app on ``data_dir`` named ``name`` ``version`` (``close`` ends it and its gateway)."""

    def __init__(self, data_dir: Path, name: str, version: str = "1.0") -> None:
        self._marker = f"{MARKER}={uuid.uuid4().hex}"
        env = dict(os.environ) | {
            "ELFTIA_DATA_DIR": str(data_dir),
            "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
            "PYTHONPATH": str(REPO),
            MARKER: self._marker.split("=", 1)[1],
        }
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "elftia_desktop.cli", "serve"], env=env, cwd=REPO
        )
        self._stack = contextlib.ExitStack()
        self._pending: list[Future[str]] = []
        try:
            self._portal = self._stack.enter_context(anyio.from_thread.start_blocking_portal())
            info = types.Implementation(name=name, version=version)
            self._session = self._stack.enter_context(self._portal.wrap_async_context_manager(_session(params, info)))
        except BaseException:
            self._stack.close()
            raise

    async def _call(self, tool: str, arguments: dict[str, Any]) -> str:
        """``RESULT <text>`` or ``ERROR <message>`` of one call (an app's view of the answer, on one line)."""
        try:
            result = await self._session.call_tool(tool, arguments)
        except MCPError as exc:
            return f"ERROR {exc}"
        texts = [block.text for block in result.content if isinstance(block, types.TextContent)]
        return ("ERROR " if result.is_error else "RESULT ") + " ".join(texts).replace("\n", " ")

    def call(self, tool: str, arguments: dict[str, Any]) -> str:
        """Call ``tool`` through the gateway; ``RESULT <text>`` or ``ERROR <message>``."""
        return self._portal.call(self._call, tool, arguments)

    def send_call(self, tool: str, arguments: dict[str, Any]) -> None:
        """Start a call without waiting for its answer (read it with :meth:`answer`)."""
        self._pending.append(self._portal.start_task_soon(self._call, tool, arguments))

    def answer(self) -> str:
        """The answer of the oldest call started with :meth:`send_call` (waits for it)."""
        return self._pending.pop(0).result()

    @property
    def gateway_pid(self) -> int:
        """The pid of the ``elftia-mcp serve`` this app started: the child of this process with the app's
        marker in its environment (the host and servers it starts inherit the marker; Linux' /proc)."""
        wanted, parent = b"\0" + self._marker.encode() + b"\0", str(os.getpid())
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                with contextlib.suppress(OSError):
                    ppid = (entry / "stat").read_text().rsplit(")", 1)[-1].split()[1]
                    if ppid == parent and wanted in b"\0" + (entry / "environ").read_bytes():
                        return int(entry.name)
        raise LookupError(f"no gateway process with {self._marker}")

    def close(self) -> None:
        """End the app: its session closes, its gateway's stdin with it, and the gateway is waited for."""
        self._stack.close()
