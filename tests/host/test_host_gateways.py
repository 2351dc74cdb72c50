"""Three apps' gateways on one pool host: one process per server, each client's calls, progress,
questions and cancellations kept apart. Each gateway is ``elftia-mcp serve`` driven by the SDK's
client over stdio; the first one starts the host on demand, and each forwards its app's lines to
the host (``host/shim.py``). The tests share the module's host (``shared_dir``), but the one that
changes the catalog.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp.client.session import ClientSession

from tests.gateway.gateway_helpers import add_stdio, open_catalog, poll, stdio_gateway, text_of
from tests.host.host_helpers import SharedFolders, add_alpha_and_gamma, answering, host_status, server_pids

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(240)]


@pytest.fixture(scope="module")
def shared_folders(shared_folders: SharedFolders) -> SharedFolders:
    """The module's folders, alpha and gamma in its catalog: one host (and one process per server) for the
    tests that only use them."""
    add_alpha_and_gamma(shared_folders.data_dir)
    return shared_folders


async def three_gateways(stack: AsyncExitStack, data_dir: Path, asked: list[str]) -> list[ClientSession]:
    sessions = []
    for name in ("ann", "bob", "cid"):
        session, _ = await stack.enter_async_context(
            stdio_gateway(data_dir, elicitation_callback=answering(name, asked))
        )
        sessions.append(session)
    return sessions


async def test_three_gateways_share_one_process_per_server(shared_dir: Path) -> None:
    async with AsyncExitStack() as stack:
        sessions = await three_gateways(stack, shared_dir, [])
        results: dict[str, str] = {}

        async def echo(index: int, session: ClientSession) -> None:
            for round_ in range(5):
                text = f"client {index} round {round_}"
                results[text] = text_of(await session.call_tool("alpha__echo", {"text": text}))

        async with anyio.create_task_group() as group:
            for index, session in enumerate(sessions):
                group.start_soon(echo, index, session)
                group.start_soon(session.call_tool, "gamma__count", {"steps": 2})
        assert results == {key: key for key in results} and len(results) == 15
        assert len(server_pids(shared_dir, "basic.py")) == 1
        assert len(server_pids(shared_dir, "features.py")) == 1
        status = host_status()
        assert status is not None
        assert sorted(c["role"] for c in status["clients"]) == ["command", "gateway", "gateway", "gateway"]
        assert {s["name"] for s in status["servers"]} == {"alpha", "gamma"}


async def test_a_slow_call_does_not_hold_up_the_others(shared_dir: Path, tmp_path: Path) -> None:
    async with AsyncExitStack() as stack:
        ann, bob, cid = await three_gateways(stack, shared_dir, [])
        order: list[str] = []

        async def slow() -> None:
            await ann.call_tool("gamma__wait", {"seconds": 2, "marker": str(tmp_path / "m")})
            order.append("ann")

        async def quick(name: str, session: ClientSession) -> None:
            assert text_of(await session.call_tool("alpha__echo", {"text": name})) == name
            order.append(name)

        async with anyio.create_task_group() as group:
            group.start_soon(slow)
            assert await poll((tmp_path / "m.started").exists)  # ann's call runs on gamma before the others call
            group.start_soon(quick, "bob", bob)
            group.start_soon(quick, "cid", cid)
        assert order[-1] == "ann" and set(order) == {"ann", "bob", "cid"}


async def test_progress_goes_to_the_client_whose_call_it_is(shared_dir: Path) -> None:
    async with AsyncExitStack() as stack:
        sessions = await three_gateways(stack, shared_dir, [])
        seen: dict[int, list[float]] = {0: [], 1: [], 2: []}

        async def count(index: int, steps: int) -> None:
            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                assert total == steps
                seen[index].append(progress)

            result = await sessions[index].call_tool("gamma__count", {"steps": steps}, progress_callback=on_progress)
            assert text_of(result) == f"counted {steps}"

        async with anyio.create_task_group() as group:
            for index, steps in enumerate((3, 5, 7)):
                group.start_soon(count, index, steps)
        assert seen == {0: [1, 2, 3], 1: [1, 2, 3, 4, 5], 2: [1, 2, 3, 4, 5, 6, 7]}


async def test_a_question_goes_to_the_client_whose_call_asked(shared_dir: Path, tmp_path: Path) -> None:
    async with AsyncExitStack() as stack:
        asked: list[str] = []
        ann, bob, cid = await three_gateways(stack, shared_dir, asked)
        async with anyio.create_task_group() as group:
            group.start_soon(ann.call_tool, "gamma__wait", {"seconds": 1, "marker": str(tmp_path / "m")})
            assert text_of(await bob.call_tool("alpha__ask_name", {})) == "hello bob (1)"
        assert text_of(await cid.call_tool("alpha__ask_name", {})) == "hello cid (1)"
        assert asked == ["bob", "cid"]


async def test_cancelling_one_clients_call_leaves_the_others_running(shared_dir: Path, tmp_path: Path) -> None:
    async with AsyncExitStack() as stack:
        ann, bob, cid = await three_gateways(stack, shared_dir, [])
        markers = {name: tmp_path / f"{name}.txt" for name in ("ann", "bob", "cid")}
        answers: dict[str, str] = {}

        async def wait(name: str, session: ClientSession, seconds: float) -> None:
            result = await session.call_tool("gamma__wait", {"seconds": seconds, "marker": str(markers[name])})
            answers[name] = text_of(result)

        await ann.list_tools()  # the servers run: the cancelled call reaches gamma before it is cancelled
        async with anyio.create_task_group() as group:
            group.start_soon(wait, "bob", bob, 3)
            group.start_soon(wait, "cid", cid, 3)
            with anyio.move_on_after(1.5):
                await wait("ann", ann, 60)
        assert await poll(markers["ann"].exists)
        assert markers["ann"].read_text(encoding="utf-8") == "cancelled"
        assert answers == {"bob": "waited 3.0", "cid": "waited 3.0"}
        assert not markers["bob"].exists() and not markers["cid"].exists()


async def test_list_changed_reaches_every_attached_client(data_dir: Path) -> None:
    catalog = open_catalog(data_dir)
    async with AsyncExitStack() as stack:
        inboxes = []
        for _ in range(3):
            session, inbox = await stack.enter_async_context(stdio_gateway(data_dir))
            await session.list_tools()
            inboxes.append(inbox)
        add_stdio(catalog, "beta", "list_changed")
        for inbox in inboxes:
            await inbox.wait_for(lambda inbox=inbox: inbox.count(types.ToolListChangedNotification) >= 1)
        assert "beta__grow" in [t.name for t in (await session.list_tools()).tools]
