"""Issue 34: the gateway serves skills (SEP-2640) to the apps that ask: the accepted skills of the servers
in scope, held-back ones left out, an agent's skill selection honoured (the extension's declaration:
``test_34_gateway_extensions.py``).

The gateway runs in the test's process (``memory_gateway``: the path the pool host serves each app on)
over the real skills test server (a process: its config names its skills folder); an SDK client asks
``skills/list``, ``skills/get`` and ``resources/read``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import mcp_types as types
import pytest
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError

from elftia_desktop.core.agent_store import AgentStore
from elftia_desktop.core.models import Agent, McpMode
from tests.gateway.gateway_helpers import add_stdio, open_catalog
from tests.helpers.memory_gateway import memory_gateway
from tests.helpers.skill_files import EMAIL, GIT, REFUNDS, copy_skill_files

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]


class _List(types.Request[types.PaginatedRequestParams, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"
    params: types.PaginatedRequestParams


class _GetParams(types.RequestParams):
    uri: str


class _Get(types.Request[_GetParams, Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"
    params: _GetParams


class _Listed(types.Result):
    skills: list[Any]


class _Got(types.Result):
    skill: Any


def _env(skills_dir: Path) -> dict[str, Any]:
    """The server's config env naming the copy (the pool starts servers with their configured env only)."""
    return {"env": {"ELFTIA_TEST_SKILLS_DIR": str(skills_dir)}}


async def listed(session: ClientSession) -> list[str]:
    """The URIs ``skills/list`` answers."""
    result = await session.send_request(_List(params=types.PaginatedRequestParams()), _Listed)
    return sorted(entry["uri"] for entry in result.skills)


async def test_accepted_skills_are_served_and_a_changed_one_is_held_back(
    isolated_data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    skills_dir = copy_skill_files(tmp_path, monkeypatch)
    add_stdio(open_catalog(isolated_data_dir), "skilled", "skills", config=_env(skills_dir))
    async with memory_gateway() as (session, _inbox):
        assert await listed(session) == [REFUNDS, GIT]  # the first listing accepts both (as for tools)
        got = await session.send_request(_Get(params=_GetParams(uri=REFUNDS)), _Got)
        assert got.skill["frontmatter"]["name"] == "refunds"
        assert {f["uri"] for f in got.skill["resources"]} == {REFUNDS, EMAIL}
        read = await session.read_resource(EMAIL)
        assert read.contents[0].text == "Dear customer, your refund is on its way.\n"  # type: ignore[union-attr]

        (skills_dir / "acme/billing/refunds/examples/email.md").write_text("Send us your password.\n")
        assert await listed(session) == [GIT]  # changed since accepted: held back, not served
        with pytest.raises(MCPError, match="No skill"):
            await session.send_request(_Get(params=_GetParams(uri=REFUNDS)), _Got)
        with pytest.raises(MCPError, match="held back or not chosen"):
            await session.read_resource(EMAIL)  # not through the resources listing either


async def test_an_agents_skill_selection(
    isolated_data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    skills_dir = copy_skill_files(tmp_path, monkeypatch)
    record = add_stdio(open_catalog(isolated_data_dir), "skilled", "skills", config=_env(skills_dir))
    agents = AgentStore(isolated_data_dir / "agents.json")
    agents.add(
        Agent(name="Coder", mcp_mode=McpMode.MANUAL, selected_servers=[record.id], selected_skills={record.id: [GIT]})
    )
    async with memory_gateway(agent="Coder") as (session, _inbox):
        assert await listed(session) == [GIT]
        with pytest.raises(MCPError, match="not chosen"):
            await session.send_request(_Get(params=_GetParams(uri=REFUNDS)), _Got)
        with pytest.raises(MCPError, match="held back or not chosen"):
            await session.read_resource(EMAIL)  # a file of a skill the agent did not choose
        git = await session.read_resource(GIT)
        assert git.contents[0].text.startswith("---\nname: git-workflow")  # type: ignore[union-attr]
