"""Issue 9: ``elftia-mcp agents …``, ``tools --agent`` and the per-tool switches, against a real stdio server."""

from __future__ import annotations

import json

import pytest

from elftia_desktop.cli import main
from elftia_desktop.core.agent_store import AgentStore
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.secrets import SecretVault
from tests.helpers.live_router import add_servers, server_input

pytestmark = pytest.mark.usefixtures("memory_servers")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_agents_add_list_update_remove(capsys: pytest.CaptureFixture[str]) -> None:
    alpha, beta = add_servers(server_input("alpha"), server_input("beta", "paginated"))
    code, out, _ = run(capsys, "agents", "add", "Coder", "--server", "alpha", "--tool", "mcp__alpha__echo")
    assert code == 0 and out.strip() == "Added Coder (manual: alpha)."
    agent = AgentStore().get("coder")
    assert agent.selected_servers == [alpha.id] and agent.selected_tools == {alpha.id: ["echo"]}
    code, out, _ = run(capsys, "agents", "list", "--json")
    assert [a["name"] for a in json.loads(out)["agents"]] == ["Assistant", "Coder"]
    code, out, _ = run(capsys, "agents", "update", "coder", "--rename", "Dev", "--server", "beta", "--all-tools")
    assert code == 0 and "Updated Dev (manual: beta)" in out
    agent = AgentStore().get("dev")
    assert agent.selected_servers == [beta.id] and agent.selected_tools is None
    code, out, _ = run(capsys, "agents", "list")
    assert "Dev        manual  beta" in out
    code, out, _ = run(capsys, "agents", "remove", "DEV")
    assert code == 0 and [a.name for a in AgentStore().list()] == ["Assistant"]


def test_an_agents_skills_are_chosen_like_its_tools(capsys: pytest.CaptureFixture[str]) -> None:
    (alpha,) = add_servers(server_input("alpha"))
    git = "skill://git-workflow/SKILL.md"
    code, _, _ = run(capsys, "agents", "add", "Coder", "--server", "alpha", "--skill", "alpha", git)
    assert code == 0 and AgentStore().get("coder").selected_skills == {alpha.id: [git]}
    code, out, _ = run(capsys, "agents", "list", "--json")
    assert json.loads(out)["agents"][1]["selectedSkills"] == {alpha.id: [git]}
    code, _, _ = run(capsys, "agents", "update", "coder", "--all-skills")
    assert code == 0 and AgentStore().get("coder").selected_skills is None


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["agents", "add", "assistant"], 'an agent named "Assistant" exists already'),
        (["agents", "add", "X", "--server", "nope"], "No server named 'nope' (servers: alpha)"),
        (["agents", "add", "X", "--tool", "mcp__alpha__nope"], "alpha has no such tool (its tools: mcp__alpha__echo"),
        (["agents", "add", "X", "--tool", "mcp__zeta__echo"], "no server has this tool id (tool ids start with: mcp"),
        (["agents", "update", "nobody", "--mode", "auto"], 'No agent named "nobody" (agents: Assistant)'),
        (["agents", "update", "assistant"], "nothing to change"),
        (["agents", "add", "X", "--skill", "alpha", "git-workflow"], "expected the URI of a skill's SKILL.md"),
        (["agents", "add", "X", "--skill", "zeta", "skill://a/SKILL.md"], "No server named 'zeta'"),
        (["disable-tool", "alpha", "nope"], 'alpha has no tool "nope" (its tools: echo, add'),
        (["enable-tool", "alpha", "echo"], '"echo" is not disabled (disabled tools: none)'),
        (["disable-tool", "zeta", "echo"], "No server named 'zeta'"),
    ],
)
def test_bad_values_are_exit_2_naming_what_is_valid(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    add_servers(server_input("alpha"))
    run(capsys, "agents", "list")  # the fresh install's Assistant
    code, _, err = run(capsys, *argv)
    assert code == 2 and message in err


def test_a_mode_that_does_not_exist_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["agents", "add", "X", "--mode", "sometimes"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'sometimes' (choose from 'disabled', 'auto', 'manual')" in capsys.readouterr().err


def test_tool_switches_and_tools_of_an_agent(capsys: pytest.CaptureFixture[str]) -> None:
    (alpha,) = add_servers(server_input("alpha"))
    assert run(capsys, "disable-tool", "alpha", "add")[1].strip() == "add of alpha is disabled."
    assert run(capsys, "auto-approve", "alpha", "echo", "off")[1].strip() == "Auto-approve of echo is off."
    record = ServerCatalog(ConfigStore(), SecretVault()).get(alpha.id)
    assert record.disabled_tools == ["add"] and record.disabled_auto_approve_tools == ["echo"]
    run(capsys, "agents", "add", "Picky", "--tool", "mcp__alpha__echo", "--tool", "mcp__alpha__pid")
    code, out, _ = run(capsys, "tools", "--agent", "picky", "--format", "anthropic", "--json")
    assert code == 0 and [t["name"] for t in json.loads(out)["payload"]] == ["mcp__alpha__echo", "mcp__alpha__pid"]
    code, out, _ = run(capsys, "tools", "--agent", "assistant", "--format", "table", "--json")
    assert "add" not in {t["name"] for t in json.loads(out)["tools"]}  # disabled on the server: no agent gets it
    assert run(capsys, "enable-tool", "alpha", "add")[0] == 0
    assert run(capsys, "auto-approve", "alpha", "echo", "on")[0] == 0
    record = ServerCatalog(ConfigStore(), SecretVault()).get(alpha.id)
    assert record.disabled_tools == [] and record.disabled_auto_approve_tools == []
    code, _, err = run(capsys, "tools", "--agent", "nobody", "--format", "openai")
    assert code == 2 and 'No agent named "nobody" (agents: Assistant, Picky)' in err
