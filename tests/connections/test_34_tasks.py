"""Issue 34: task-augmented calls (``io.modelcontextprotocol/tasks``) against the tasks test server.

The server answers a task tool with a task handle; the call polls ``tasks/get`` at the server's
``pollIntervalMs`` (the sleep is injected: it records the interval and yields, the work advances
on each poll) and returns the final ``CallToolResult`` through ``call_tool`` as any call does. A
cancelled call cancels the task upstream; a live call whose caller merely goes away keeps its task.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from elftia_desktop.connections.events import ServiceEvents, TaskStatus
from elftia_desktop.connections.service import McpService
from elftia_desktop.connections.task_book import TaskBook
from elftia_desktop.connections.task_runner import TaskCalls
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.errors import ToolCallCancelled, ToolCallError
from tests.connections.pool_helpers import add_server, http_input, stdio_input
from tests.servers.serve_http import serve_http

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]


class Sleeps:
    """An injected sleep: records each interval asked for and yields once."""

    def __init__(self) -> None:
        self.asked: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.asked.append(seconds)
        await anyio.lowlevel.checkpoint()


@pytest.fixture
def sleeps(service: McpService) -> Sleeps:
    """The service's task polling with the recording sleep."""
    recorder = Sleeps()
    service.calls.tasks = TaskCalls(service.pool, service.events, sleep=recorder)
    return recorder


def statuses(service: McpService) -> list[TaskStatus]:
    """The ``TaskStatus`` events from now on."""
    seen: list[TaskStatus] = []
    service.events.on(TaskStatus, seen.append)
    return seen


async def server_tasks(service: McpService, sid: str) -> dict[str, str]:
    """``{taskId: status}`` as the server holds them."""
    told = await service.call_tool(sid, "tasks_seen", {})
    return dict(json.loads(told.content[0]["text"]))


async def test_a_task_call_is_polled_at_the_servers_interval_to_its_result(service: McpService, sleeps: Sleeps) -> None:
    sid = await add_server(service, stdio_input("tasked", "tasks"))
    seen = statuses(service)
    result = await service.call_tool(sid, "count_steps", {"steps": 3})
    assert not result.is_error and result.content[0]["text"] == "counted 3 steps"
    assert result.structured_content == {"result": "counted 3 steps"}
    assert [(e.status, e.status_message) for e in seen] == [
        ("working", "started"),
        ("working", "step 1 of 3"),
        ("working", "step 2 of 3"),
        ("completed", "counted 3 steps"),
    ]
    assert sleeps.asked == [0.02, 0.02, 0.02]  # the server's pollIntervalMs, before each tasks/get
    task_id = seen[0].task_id
    assert {e.task_id for e in seen} == {task_id} and seen[0].tool_name == "count_steps"
    assert (await server_tasks(service, sid))[task_id] == "completed"
    entry = service.calls.tasks.book.get(sid, task_id)
    assert entry is not None and entry.status == "completed" and entry.server_name == "tasked"


async def test_cancelling_the_call_cancels_the_task_upstream(
    service: McpService, sleeps: Sleeps, tmp_path: Path
) -> None:
    sid = await add_server(service, stdio_input("tasked", "tasks"))
    seen = statuses(service)
    working = asyncio.Event()
    service.events.on(TaskStatus, lambda e: working.set() if e.status_message == "waiting for the file" else None)
    call = asyncio.create_task(service.call_tool(sid, "wait_for_file", {"path": str(tmp_path / "never")}, "c1"))
    await working.wait()
    assert service.cancel_call("c1")
    with pytest.raises(ToolCallCancelled):
        await call
    task_id = seen[0].task_id
    assert (await server_tasks(service, sid))[task_id] == "cancelled"  # tasks/cancel reached the server
    assert seen[-1].status == "cancelled"
    assert await service.calls.tasks.cancel(await service.records.get(sid), task_id) is False  # ended already


async def test_a_live_call_whose_caller_goes_away_keeps_its_task(
    service: McpService, sleeps: Sleeps, tmp_path: Path
) -> None:
    sid = await add_server(service, stdio_input("tasked", "tasks"))
    flag = tmp_path / "flag"
    waiting, done = asyncio.Event(), asyncio.Event()

    def on_status(event: TaskStatus) -> None:
        if event.status_message == "waiting for the file":
            waiting.set()
        if event.status == "completed":
            done.set()

    service.events.on(TaskStatus, on_status)
    call = asyncio.create_task(service.call_tool(sid, "wait_for_file", {"path": str(flag)}, "c2"))
    await waiting.wait()
    call.cancel()  # the dialog closed: not a cancel of the call
    with pytest.raises(asyncio.CancelledError):
        await call
    flag.write_text("here", encoding="utf-8")
    await done.wait()
    [entry] = service.calls.tasks.book.entries()
    assert entry.status == "completed" and entry.call_id == "c2"
    assert (await server_tasks(service, sid))[entry.task_id] == "completed"


async def test_a_task_cancelled_by_its_id(service: McpService, sleeps: Sleeps, tmp_path: Path) -> None:
    sid = await add_server(service, stdio_input("tasked", "tasks"))
    waiting = asyncio.Event()
    service.events.on(TaskStatus, lambda e: waiting.set() if e.status == "working" else None)
    call = asyncio.create_task(service.call_tool(sid, "wait_for_file", {"path": str(tmp_path / "never")}))
    await waiting.wait()
    [entry] = service.calls.tasks.book.entries()
    assert await service.calls.tasks.cancel(await service.records.get(sid), entry.task_id)
    with pytest.raises(ToolCallCancelled, match="was cancelled"):
        await call
    assert (await server_tasks(service, sid))[entry.task_id] == "cancelled"


async def test_a_failed_task_is_the_error_it_carries(service: McpService, sleeps: Sleeps) -> None:
    sid = await add_server(service, stdio_input("tasked", "tasks"))
    seen = statuses(service)
    with pytest.raises(ToolCallError, match="the job broke on purpose"):
        await service.call_tool(sid, "broken_task", {})
    assert seen[-1].status == "failed"


async def test_without_the_extension_no_task_is_made(service: McpService, sleeps: Sleeps, tmp_path: Path) -> None:
    """A handshake-era connection has no per-request extensions: the server answers plainly or refuses."""
    sid = await add_server(service, stdio_input("old", "tasks", config={"protocol": "legacy"}))
    seen = statuses(service)
    result = await service.call_tool(sid, "count_steps", {"steps": 2})
    assert result.content[0]["text"] == "counted 2 steps" and seen == [] and sleeps.asked == []
    with pytest.raises(ToolCallError, match="Missing required client capability"):
        await service.call_tool(sid, "wait_for_file", {"path": str(tmp_path / "x")})


async def test_the_next_pool_finds_a_running_task_and_follows_it_to_its_end(
    service: McpService, catalog: ServerCatalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pool that closes (its window quits) keeps the task; the next one lists it and follows it again
    (the server's tasks are kept in a file, so they outlive its process as a job service's would)."""
    monkeypatch.setenv("ELFTIA_TEST_TASKS_FILE", str(tmp_path / "server-tasks.json"))
    sid = await add_server(service, stdio_input("tasked", "tasks"))
    flag = tmp_path / "flag"
    waiting = asyncio.Event()
    service.events.on(TaskStatus, lambda e: waiting.set() if e.status_message == "waiting for the file" else None)
    call = asyncio.create_task(service.call_tool(sid, "wait_for_file", {"path": str(flag)}, "c3"))
    await waiting.wait()
    call.cancel()  # the dialog closed
    with pytest.raises(asyncio.CancelledError):
        await call
    service.calls.tasks.close()  # the pool host stops
    await service.cleanup()
    [saved] = json.loads((tmp_path / "tasks.json").read_text(encoding="utf-8"))["tasks"]
    assert saved["status"] == "working" and saved["toolName"] == "wait_for_file" and saved["callId"] == "c3"

    again = McpService(catalog, runtime_dir=tmp_path / "runtime2")
    try:
        done = asyncio.Event()
        again.events.on(TaskStatus, lambda e: done.set() if e.status == "completed" else None)
        [listed] = await again.list_tasks()
        assert listed.task_id == saved["taskId"] and listed.server_name == "tasked"
        flag.write_text("here", encoding="utf-8")
        await done.wait()
        assert [t.status for t in await again.list_tasks()] == ["completed"]
        assert (await server_tasks(again, sid))[saved["taskId"]] == "completed"
    finally:
        await again.cleanup()


async def test_a_saved_task_of_a_server_that_forgot_it_is_recorded_failed(
    service: McpService, catalog: ServerCatalog, tmp_path: Path
) -> None:
    sid = await add_server(service, stdio_input("tasked", "tasks"))
    (tmp_path / "tasks.json").write_text(
        json.dumps(
            {
                "tasks": [
                    {
                        "serverId": sid,
                        "serverName": "tasked",
                        "toolName": "count_steps",
                        "taskId": "gone",
                        "callId": None,
                        "status": "working",
                        "statusMessage": None,
                        "startedAt": 1.0,
                        "pollIntervalMs": 20,
                    }
                ]
            }
        ),
        encoding="utf-8",
    )
    again = McpService(catalog, runtime_dir=tmp_path / "runtime2")
    try:
        failed = asyncio.Event()
        again.events.on(TaskStatus, lambda e: failed.set() if e.status == "failed" else None)
        await again.list_tasks()
        await failed.wait()
        [entry] = again.calls.tasks.book.entries()
        assert "No task gone" in (entry.status_message or "")
    finally:
        await again.cleanup()


@pytest.mark.real_process
async def test_a_task_over_streamable_http(service: McpService, sleeps: Sleeps) -> None:
    """The same polling over Streamable HTTP (where ``tasks/get`` and ``tasks/cancel`` also carry ``Mcp-Name``)."""
    with serve_http("tasks", "streamable-http") as url:
        sid = await add_server(service, http_input("tasked", url, "http"))
        seen = statuses(service)
        result = await service.call_tool(sid, "count_steps", {"steps": 2})
        assert result.content[0]["text"] == "counted 2 steps"
        assert [e.status for e in seen] == ["working", "working", "completed"]


@pytest.mark.parametrize(
    ("drop", "bad", "why"),
    [
        ("taskId", {}, "an entry without its task id"),
        (None, {"taskId": 7}, "a task id that is no text"),
        (None, {"startedAt": "noon"}, "a start that is no number"),
    ],
)
async def test_a_saved_book_that_is_no_task_list_is_logged_and_read_as_none(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, drop: str | None, bad: dict[str, Any], why: str
) -> None:
    """The book's file as the next pool host reads it: good entries come back; one that is not an entry
    (``why``) makes the file not a saved task list, logged, and the book starts empty."""
    good = {
        "serverId": "s1",
        "serverName": "tasked",
        "toolName": "count_steps",
        "taskId": "t1",
        "callId": None,
        "status": "working",
        "statusMessage": None,
        "startedAt": 1.0,
    }
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps({"tasks": [good]}), encoding="utf-8")
    assert [entry.task_id for entry in TaskBook(ServiceEvents(), path).entries()] == ["t1"]
    broken = {key: value for key, value in (good | bad).items() if key != drop}
    path.write_text(json.dumps({"tasks": [good, broken]}), encoding="utf-8")
    assert TaskBook(ServiceEvents(), path).entries() == [], why
    assert "is not a saved task list" in caplog.text
    assert json.loads((tmp_path / "tasks.json.bad").read_text(encoding="utf-8"))["tasks"][1] == broken  # kept
