"""Issue 34: tasks forwarded through the gateway: an SDK client that declares the tasks extension gets the
server's task handle under the gateway's id, follows it with ``tasks/get`` and cancels it with ``tasks/cancel``;
one that does not declare it gets the final result. The gateway runs in the test's process on the path the
pool host serves each app on (``gateway_transport``), the tasks server as a process."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.extension import ClientExtension, ResultClaim
from mcp.shared.exceptions import MCPError

from elftia_desktop.connections.task_calls import TASK_CLAIM, TaskHandle, TaskState, cancel_task, get_task
from elftia_desktop.core.extensions import TASKS_EXTENSION
from tests.gateway.gateway_helpers import add_stdio, open_catalog
from tests.helpers.memory_gateway import gateway_transport

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]


class Tasks(ClientExtension):
    """The app's side of the extension: the ``resultType: "task"`` claim."""

    identifier = TASKS_EXTENSION

    def claims(self) -> Sequence[ResultClaim[Any]]:
        """The task handle."""
        return [TASK_CLAIM]


@pytest.fixture
def server_tasks(isolated_data_dir: Path, tmp_path: Path) -> Path:
    """``tasked`` behind the gateway; the file the server keeps its tasks in."""
    path = tmp_path / "server-tasks.json"
    add_stdio(open_catalog(isolated_data_dir), "tasked", "tasks", config={"env": {"ELFTIA_TEST_TASKS_FILE": str(path)}})
    return path


def upstream(server_tasks: Path) -> dict[str, str]:
    """``{taskId: status}`` as the server keeps them."""
    return {key: job["status"] for key, job in json.loads(server_tasks.read_text(encoding="utf-8")).items()}


async def until_ended(client: Client, task_id: str) -> list[TaskState]:
    """``tasks/get`` until the task ends (the server advances it on each poll); every state seen."""
    states = [await get_task(client.session, task_id)]
    while states[-1].status not in ("completed", "failed", "cancelled"):
        states.append(await get_task(client.session, task_id))
    return states


async def test_an_app_follows_a_servers_task_through_the_gateway(isolated_data_dir: Path, server_tasks: Path) -> None:
    async with Client(gateway_transport(), mode="auto", extensions=[Tasks()]) as client:
        assert TASKS_EXTENSION in (client.server_capabilities.extensions or {})
        handle = await client.session.call_tool("tasked__count_steps", {"steps": 2}, allow_claimed=True)
        assert isinstance(handle, TaskHandle) and handle.status == "working"
        [upstream_id] = upstream(server_tasks)
        assert handle.task_id != upstream_id  # the gateway's own id
        states = await until_ended(client, handle.task_id)
        assert [s.status_message for s in states] == ["step 1 of 2", "counted 2 steps"]
        assert states[-1].task_id == handle.task_id and states[-1].status == "completed"
        assert states[-1].result is not None and states[-1].result["content"][0]["text"] == "counted 2 steps"

        waiting = await client.session.call_tool(
            "tasked__wait_for_file", {"path": "/nonexistent/x"}, allow_claimed=True
        )
        assert isinstance(waiting, TaskHandle)
        await cancel_task(client.session, waiting.task_id)
        assert sorted(upstream(server_tasks).values()) == ["cancelled", "completed"]
        assert (await get_task(client.session, waiting.task_id)).status == "cancelled"
        with pytest.raises(MCPError, match="not one this gateway handed out"):
            await get_task(client.session, upstream_id)  # the server's own id names nothing here


async def test_an_app_without_the_extension_gets_the_final_result(isolated_data_dir: Path, server_tasks: Path) -> None:
    async with Client(gateway_transport(), mode="auto") as client:
        result = await client.call_tool("tasked__count_steps", {"steps": 2})
        assert not result.is_error and result.content[0].text == "counted 2 steps"  # type: ignore[union-attr]
        assert list(upstream(server_tasks).values()) == ["completed"]
