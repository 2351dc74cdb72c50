"""A stdio server without a working folder starts in the user's home folder, never in the app's own; a
``~`` in the working folder means the home folder too."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from mcp.client.session import ClientSession

from elftia_desktop.connections.stdio_process import open_stdio

BASIC = Path(__file__).resolve().parents[1] / "servers" / "basic.py"
pytestmark = [
    pytest.mark.anyio,
    pytest.mark.timeout(60),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
]


async def started_in(cwd: str | None) -> str:
    """The working folder of a real server started with ``cwd``."""
    async with (
        open_stdio([sys.executable, str(BASIC)], dict(os.environ), cwd, lambda _line: None) as (read, write, process),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        return os.readlink(f"/proc/{process.pid}/cwd")


async def test_no_working_folder_means_the_home_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert Path.cwd() != tmp_path
    assert await started_in(None) == str(tmp_path)
    assert await started_in("") == str(tmp_path)


async def test_a_tilde_working_folder_is_under_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "work").mkdir()
    assert await started_in("~/work") == str(tmp_path / "work")
