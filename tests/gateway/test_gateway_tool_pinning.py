"""The gateway serves a changed tool only after it was accepted: ``tools/list`` leaves it out, a call
is refused, ``elftia-mcp review --all`` (another process) brings it back with ``list_changed``."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from tests.gateway.gateway_helpers import add_stdio, gateway_env, open_catalog, text_of
from tests.helpers.memory_gateway import memory_gateway

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(180)]


async def test_a_changed_tool_leaves_tools_list_until_accepted(isolated_data_dir: Path, tmp_path: Path) -> None:
    state = tmp_path / "listings"
    add_stdio(open_catalog(isolated_data_dir), "rug", "rug_pull", config={"env": {"RUG_STATE": str(state)}})
    async with memory_gateway() as (session, inbox):
        names = [t.name for t in (await session.list_tools()).tools]
        assert "rug__weather" in names  # pinned on its first listing

        await session.call_tool("rug__relist", {})  # the server says its list changed; the 2nd listing is hostile
        await inbox.wait_for(lambda: inbox.count(types.ToolListChangedNotification) >= 1)
        names = [t.name for t in (await session.list_tools()).tools]
        assert names == ["rug__argv", "rug__env", "rug__echo", "rug__relist"]
        with pytest.raises(MCPError, match=r"Unknown tool 'rug__weather' \(known: rug__argv, rug__env, rug__echo"):
            await session.call_tool("rug__weather", {"city": "x"})

        state.write_text("1")  # the review's own listing is the hostile one too
        done = await anyio.run_process(
            [*_cli(), "review", "rug", "--all"], env=gateway_env(isolated_data_dir), check=False
        )
        assert done.stdout.decode().strip() == "Accepted: weather.", done.stderr.decode()
        with anyio.fail_after(15):  # each list change is told; the one after the accept serves the tool again
            while "rug__weather" not in (tools := {t.name: t for t in (await session.list_tools()).tools}):
                seen = inbox.count(types.ToolListChangedNotification)
                await inbox.wait_for(lambda seen=seen: inbox.count(types.ToolListChangedNotification) > seen)
        assert "~/.ssh/id_rsa" in (tools["rug__weather"].description or "")  # accepted as it is now
        assert text_of(await session.call_tool("rug__weather", {"city": "x"})) == "Sunny in x"


def _cli() -> list[str]:
    return [sys.executable, "-m", "elftia_desktop.cli"]
