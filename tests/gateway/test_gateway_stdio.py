"""Issue 12: the gateway over stdio, driven by the SDK's client.

What goes through the gateway (names, calls, progress, cancellation, prompts, resources, completions,
logs, questions, list changes, hub mode, secrets) is checked on the gateway in the test's process
(``memory_gateway``: the host's per-client path) with the test servers in memory. The real
``elftia-mcp serve`` over stdio, attached to a real pool host with real server processes, keeps the
tests only processes show: the stdio path end to end, a crashing server, no process left behind.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp.client.session import ClientRequestContext, ClientSession
from mcp.shared.exceptions import MCPError

from elftia_desktop.core.catalog import ServerCatalog
from tests.gateway.gateway_helpers import (
    Inbox,
    add_stdio,
    gateway_env,
    open_catalog,
    poll,
    process_alive,
    processes_with_env,
    stdio_gateway,
    text_of,
)
from tests.helpers.memory_gateway import memory_gateway
from tests.helpers.memory_servers import in_memory_servers

pytestmark = pytest.mark.anyio
in_memory = pytest.mark.usefixtures("memory_servers")
"""The gateway in this process and the test servers in memory (no process)."""


@pytest.fixture
def data_dir(isolated_data_dir: Path) -> Path:
    """The data folder, with alpha (basic, 'crash' disabled), beta (list_changed) and gamma (features)."""
    catalog = open_catalog(isolated_data_dir)
    add_stdio(catalog, "alpha", "basic", disabled_tools=["crash"])
    add_stdio(catalog, "beta", "list_changed")
    add_stdio(catalog, "gamma", "features")
    return isolated_data_dir


@pytest.mark.daemon
async def test_tools_of_servers_listed_under_prefixes_and_called(data_dir: Path) -> None:
    async with stdio_gateway(data_dir) as (session, _):
        names = [tool.name for tool in (await session.list_tools()).tools]
        assert {"alpha__echo", "alpha__add", "beta__grow", "gamma__count", "gamma__wait"} <= set(names)
        assert "alpha__crash" not in names  # disabled on the server: never exposed
        result = await session.call_tool("alpha__echo", {"text": "through the gateway"})
        assert not result.is_error
        assert text_of(result) == "through the gateway"
        structured = await session.call_tool("alpha__add", {"a": 2, "b": 3})
        assert structured.structured_content == {"sum": 5}
        with pytest.raises(MCPError, match="Unknown tool 'alpha__crash'"):
            await session.call_tool("alpha__crash", {})  # disabled: not routed either


@in_memory
async def test_progress_passes_through(data_dir: Path) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async with memory_gateway() as (session, _):
        result = await session.call_tool("gamma__count", {"steps": 3}, progress_callback=on_progress)
        assert text_of(result) == "counted 3"
    assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]


@in_memory
async def test_cancellation_reaches_the_server_and_others_keep_working(data_dir: Path, tmp_path: Path) -> None:
    marker = tmp_path / "cancelled.txt"
    async with memory_gateway() as (session, _):
        await session.list_tools()
        with anyio.move_on_after(1.5):
            await session.call_tool("gamma__wait", {"seconds": 60, "marker": str(marker)})
        assert await poll(marker.exists)
        assert marker.read_text(encoding="utf-8") == "cancelled"
        assert text_of(await session.call_tool("alpha__echo", {"text": "still here"})) == "still here"


@in_memory
async def test_a_hanging_call_blocks_nothing_else(data_dir: Path, tmp_path: Path) -> None:
    async with memory_gateway() as (session, _):
        await session.list_tools()
        async with anyio.create_task_group() as tg:
            tg.start_soon(session.call_tool, "gamma__wait", {"seconds": 60, "marker": str(tmp_path / "m")})
            assert await poll((tmp_path / "m.started").exists)  # the hanging call reached the server
            started = time.monotonic()
            assert text_of(await session.call_tool("alpha__echo", {"text": "quick"})) == "quick"
            prompts = await session.list_prompts()
            assert time.monotonic() - started < 10
            assert "gamma__paint" in [p.name for p in prompts.prompts]
            tg.cancel_scope.cancel()


@in_memory
async def test_prompts_resources_templates_completions_and_logs(data_dir: Path) -> None:
    async with memory_gateway() as (session, inbox):
        prompts = {p.name for p in (await session.list_prompts()).prompts}
        assert {"alpha__greet", "gamma__paint"} <= prompts
        prompt = await session.get_prompt("alpha__greet", {"name": "Ada"})
        assert "Say hello to Ada" in str(prompt.messages[0].content)
        resources = [str(r.uri) for r in (await session.list_resources()).resources]
        assert "memo://hello" in resources
        read = await session.read_resource("memo://hello")
        assert read.contents[0].text == "hello"  # type: ignore[union-attr]
        templates = [t.uri_template for t in (await session.list_resource_templates()).resource_templates]
        assert "memo://item/{key}" in templates
        item = await session.read_resource("memo://item/xyz")
        assert item.contents[0].text == "item xyz"  # type: ignore[union-attr]
        done = await session.complete(
            types.PromptReference(type="ref/prompt", name="gamma__paint"), {"name": "colour", "value": "gr"}
        )
        assert done.completion.values == ["green", "grey"]
        await session.call_tool("gamma__shout", {"message": "hear me"})
        await inbox.wait_for(lambda: any(log.data == "hear me" for log in inbox.logs))
        entry = next(log for log in inbox.logs if log.data == "hear me")
        assert entry.level == "warning"
        assert entry.logger == "gamma/loud"
        level = types.SetLevelRequest(params=types.SetLevelRequestParams(level="error"))
        await session.send_request(level, types.EmptyResult)
        await session.call_tool("gamma__shout", {"message": "below the level"})
        await session.call_tool("gamma__shout", {"message": "last"})
        # A barrier: back at "warning", one more shout; what got through before would have come first.
        level = types.SetLevelRequest(params=types.SetLevelRequestParams(level="warning"))
        await session.send_request(level, types.EmptyResult)
        await session.call_tool("gamma__shout", {"message": "barrier"})
        await inbox.wait_for(lambda: any(log.data == "barrier" for log in inbox.logs))
        assert not [log for log in inbox.logs if log.data in ("below the level", "last")]


@in_memory
async def test_elicitation_and_sampling_are_forwarded_to_the_client(data_dir: Path) -> None:
    async def elicit(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestFormParams)
        assert params.message == "What is your name?"
        return types.ElicitResult(action="accept", content={"name": "Grace", "age": 85})

    async def sample(
        context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text="ok"), model="m")

    async with memory_gateway(elicitation_callback=elicit, sampling_callback=sample) as (session, _):
        assert text_of(await session.call_tool("alpha__ask_name", {})) == "hello Grace (85)"
        assert text_of(await session.call_tool("alpha__sample", {})) == "sampled"


@in_memory
async def test_without_client_support_elicitation_is_declined(data_dir: Path) -> None:
    async with memory_gateway() as (session, _):
        assert text_of(await session.call_tool("alpha__ask_name", {})) == "no name: decline"
        refused = await session.call_tool("alpha__sample", {})  # the refusal ends the tool call
        assert refused.is_error and "does not support sampling" in text_of(refused)


@in_memory
async def test_list_changed_after_a_config_change_and_a_server_change(data_dir: Path) -> None:
    catalog = open_catalog(data_dir)
    alpha = catalog.find("alpha")
    async with memory_gateway() as (session, inbox):
        assert "alpha__add" in [t.name for t in (await session.list_tools()).tools]
        catalog.update(alpha.id, {"disabledTools": ["crash", "add"]})
        await inbox.wait_for(lambda: inbox.count(types.ToolListChangedNotification) >= 1)
        assert "alpha__add" not in [t.name for t in (await session.list_tools()).tools]

        before = inbox.count(types.ToolListChangedNotification)
        await session.call_tool("beta__grow", {"name": "sprout"})
        await inbox.wait_for(lambda: inbox.count(types.ToolListChangedNotification) > before)
        # a tool added after the server was trusted is held back until reviewed (tool pinning) ...
        assert "beta__sprout" not in [t.name for t in (await session.list_tools()).tools]
        before = inbox.count(types.ToolListChangedNotification)
        review = [sys.executable, "-m", "elftia_desktop.cli", "review", "beta", "--accept", "sprout"]
        done = await anyio.run_process(review, env=gateway_env(data_dir), check=False)
        assert done.stdout.decode().strip() == "Accepted: sprout.", done.stderr.decode()
        await inbox.wait_for(lambda: inbox.count(types.ToolListChangedNotification) > before)
        assert "beta__sprout" in [t.name for t in (await session.list_tools()).tools]  # ... and served once accepted


async def test_untrusted_never_started_and_failures_reported(data_dir: Path) -> None:
    catalog = open_catalog(data_dir)
    marker = f"GATEWAY_UNTRUSTED_{time.monotonic_ns()}"
    add_stdio(catalog, "delta", "basic", trusted=False, config={"env": {"MARK": marker}})
    # alpha (basic.py) stays a real process: its crash ends it; beta and gamma in memory
    with in_memory_servers({"list_changed", "features"}) as opened:
        async with memory_gateway() as (session, inbox):
            await run_untrusted_and_failing(session, inbox, catalog, marker)
    assert set(opened) == {"features", "list_changed"}


async def run_untrusted_and_failing(session: ClientSession, inbox: Inbox, catalog: ServerCatalog, marker: str) -> None:
    """delta (untrusted) neither listed nor started; alpha's crash reported naming it; beta unharmed."""
    names = [t.name for t in (await session.list_tools()).tools]
    assert not [n for n in names if n.startswith("delta__")]
    assert processes_with_env(marker) == []
    await session.call_tool("alpha__stderr", {"line": "about to fail"})
    crash_free = catalog.find("alpha")
    before = inbox.count(types.ToolListChangedNotification)
    catalog.update(crash_free.id, {"disabledTools": []})
    await inbox.wait_for(lambda: inbox.count(types.ToolListChangedNotification) > before)  # noticed
    result = await session.call_tool("alpha__crash", {"code": 9})
    assert result.is_error
    assert "alpha" in text_of(result)
    assert text_of(await session.call_tool("beta__grow", {"name": "after"})) == "added after"


@in_memory
async def test_secrets_never_reach_the_client(data_dir: Path) -> None:
    catalog = open_catalog(data_dir)
    secret = "sk-live-4f9a8b7c6d5e"
    add_stdio(catalog, "vault", "basic", config={"env": {"API_KEY": secret}})
    assert secret not in (data_dir / "mcp-config.json").read_text(encoding="utf-8")
    async with memory_gateway() as (session, _):
        await session.call_tool("vault__stderr", {"line": f"debug: key is {secret}"})
        result = await session.call_tool("vault__crash", {"code": 4})
        assert result.is_error
        assert text_of(result).startswith("vault: ")
        assert "crashing with 4" in text_of(result)
        assert "debug: key is ***" in text_of(result)  # the stderr tail, with the value masked
        assert secret not in text_of(result)
        listing = await session.list_tools()
        assert secret not in listing.model_dump_json()


@pytest.mark.daemon
async def test_closing_the_client_leaves_no_server_process(data_dir: Path) -> None:
    # with its own pool; attached to the pool host the server stays for the other apps (tests/host)
    catalog = open_catalog(data_dir)
    for name in ("beta", "gamma"):  # alpha's process is the one watched
        catalog.remove(catalog.find(name).id)
    async with stdio_gateway(data_dir, "--no-daemon") as (session, _):
        pid = int(text_of(await session.call_tool("alpha__pid", {})))
        assert process_alive(pid)
    assert await poll(lambda: not process_alive(pid))


@in_memory
async def test_hub_mode_finds_and_calls_a_tool(data_dir: Path) -> None:
    async with memory_gateway(hub=True) as (session, _):
        names = [t.name for t in (await session.list_tools()).tools]
        assert names == ["find_tools", "call_tool"]
        found = await session.call_tool("find_tools", {"query": "echo text unchanged"})
        assert found.structured_content is not None
        hits = found.structured_content["tools"]
        assert hits[0]["name"] == "alpha__echo"
        assert hits[0]["inputSchema"]["properties"]["text"]["type"] == "string"
        called = await session.call_tool("call_tool", {"name": "alpha__echo", "arguments": {"text": "via hub"}})
        assert text_of(called) == "via hub"
        missing = await session.call_tool("call_tool", {"name": "nope"})
        assert missing.is_error
        assert "find_tools" in text_of(missing)
