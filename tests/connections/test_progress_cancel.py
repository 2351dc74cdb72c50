"""Issue 10: progress notifications, cancelling a call, prompts and resources, over real stdio."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import mcp_types as types
import pytest

from elftia_desktop.connections.events import ToolCalled, ToolProgress
from elftia_desktop.connections.service import McpService
from elftia_desktop.core.errors import ServerConnectionError, ToolCallCancelled, ToolCallError
from tests.connections.pool_helpers import add_server, stdio_input

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(90), pytest.mark.usefixtures("memory_servers")]


def _read_when_there(path: Path, seconds: float = 15.0) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists():
            return path.read_text(encoding="utf-8")
        time.sleep(0.05)
    raise AssertionError(f"{path} never appeared")


@pytest.mark.real_process
async def test_progress_notifications_become_events(service: McpService) -> None:
    sid = await add_server(service, stdio_input("explore", "explore"))
    progress: list[ToolProgress] = []
    service.events.on(ToolProgress, progress.append)
    response = await service.call_tool(sid, "count", {"steps": 4, "delay": 0.02}, call_id="p1")
    assert response.content == [{"type": "text", "text": "counted to 4"}]
    assert [(p.progress, p.total) for p in progress] == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert {p.call_id for p in progress} == {"p1"} and progress[-1].message == "step 4 of 4"


async def test_cancel_tells_the_server_and_raises_cancelled(service: McpService, tmp_path: Path) -> None:
    sid = await add_server(service, stdio_input("explore", "explore"))
    marker = tmp_path / "cancelled.txt"
    called: list[ToolCalled] = []
    service.events.on(ToolCalled, called.append)
    progressed = asyncio.Event()
    service.events.on(ToolProgress, lambda _e: progressed.set())
    args = {"steps": 200, "delay": 0.05, "marker": str(marker)}
    call = asyncio.create_task(service.call_tool(sid, "count", args, call_id="slow-1"))
    await asyncio.wait_for(progressed.wait(), 30)
    with pytest.raises(ToolCallError, match="already running"):
        await service.call_tool(sid, "count", {"steps": 1}, call_id="slow-1")
    assert service.cancel_call("slow-1") is True
    with pytest.raises(ToolCallCancelled, match="cancelled"):
        await call
    assert (await asyncio.to_thread(_read_when_there, marker)).startswith("cancelled at ")
    assert called[-1].outcome == "cancelled" and not called[-1].ok
    assert service.cancel_call("slow-1") is False  # finished: nothing to cancel
    # The connection survives a cancelled call.
    again = await service.call_tool(sid, "count", {"steps": 1, "delay": 0}, call_id="slow-2")
    assert again.is_error is False


async def test_prompt_and_resources(service: McpService) -> None:
    sid = await add_server(service, stdio_input("explore", "explore"))
    prompt = await service.get_prompt(sid, "review", {"language": "Python", "code": "x = 1"})
    assert [m.role for m in prompt.messages] == ["user", "assistant"]
    first = prompt.messages[0].content
    assert isinstance(first, types.TextContent) and first.text == "Review this Python code:\nx = 1"
    text = (await service.read_resource(sid, "memo://readme")).contents[0]
    assert isinstance(text, types.TextResourceContents) and text.text == "Read me first.\nSecond line."
    image = (await service.read_resource(sid, "memo://logo")).contents[0]
    assert isinstance(image, types.BlobResourceContents) and image.mime_type == "image/png" and image.blob
    templated = (await service.read_resource(sid, "memo://notes/cats")).contents[0]
    assert isinstance(templated, types.TextResourceContents) and templated.text == "Notes about cats."
    with pytest.raises(ServerConnectionError):
        await service.get_prompt(sid, "review", {"language": "Python"})
