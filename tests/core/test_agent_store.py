"""Issue 9: ``agents.json``: unique names, safe writes, recovery, and agents kept consistent with the servers."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from elftia_desktop.core.agent_store import AGENTS_VERSION, AgentStore
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.errors import AgentNotFound, ConfigError, ConfigTooNew, DuplicateAgentName
from elftia_desktop.core.first_run import seed_default_agent
from elftia_desktop.core.models import Agent, McpMode, McpServerInput
from elftia_desktop.core.secrets import SecretVault

ROOT = Path(__file__).resolve().parents[2]


def store(tmp_path: Path) -> AgentStore:
    return AgentStore(tmp_path / "agents.json")


def test_add_get_and_names_unique_case_insensitive(tmp_path: Path) -> None:
    agents = store(tmp_path)
    coder = agents.add(Agent(name="  Coder ", mcp_mode=McpMode.MANUAL, selected_servers=["s1", "s1", "s2"]))
    assert coder.name == "Coder" and coder.selected_servers == ["s1", "s2"]
    assert agents.get("coder").id == coder.id == agents.get(coder.id).id
    with pytest.raises(DuplicateAgentName, match='"Coder" exists already'):
        agents.add(Agent(name="CODER"))
    with pytest.raises(AgentNotFound, match=r'No agent named "writer" \(agents: Coder\)'):
        agents.get("writer")
    data = json.loads(agents.path.read_text())
    assert data["version"] == AGENTS_VERSION
    assert data["agents"][0] | {} == {
        "id": coder.id,
        "name": "Coder",
        "mcpMode": "manual",
        "selectedServers": ["s1", "s2"],
        "createdAt": coder.created_at,
    }


def test_update_rename_mode_and_tool_selection(tmp_path: Path) -> None:
    agents = store(tmp_path)
    agents.add(Agent(name="one"))
    agents.add(Agent(name="two"))
    after = agents.update("ONE", {"name": "First", "mcpMode": "manual", "selected_tools": {"s1": ["echo"]}})
    assert (after.name, after.mcp_mode, after.selected_tools) == ("First", McpMode.MANUAL, {"s1": ["echo"]})
    assert after.updated_at is not None
    assert agents.update("first", {"selectedTools": None}).selected_tools is None
    with pytest.raises(DuplicateAgentName):
        agents.update("first", {"name": "Two"})
    with pytest.raises(ConfigError, match="mcpMode: Input should be 'disabled', 'auto' or 'manual'"):
        agents.update("first", {"mcpMode": "sometimes"})
    with pytest.raises(ConfigError, match="id: cannot be changed"):
        agents.update("first", {"id": "x"})
    assert [a.name for a in agents.list()] == ["First", "two"]


def test_remove_and_duplicate(tmp_path: Path) -> None:
    agents = store(tmp_path)
    source = agents.add(Agent(name="Coder", mcp_mode=McpMode.MANUAL, selected_servers=["s1"]))
    copy = agents.duplicate("coder")
    again = agents.duplicate("coder")
    assert (copy.name, again.name) == ("Coder copy", "Coder copy 2")
    assert copy.id != source.id and copy.selected_servers == ["s1"] and copy.mcp_mode is McpMode.MANUAL
    assert agents.remove("coder copy").id == copy.id
    assert [a.name for a in agents.list()] == ["Coder", "Coder copy 2"]
    with pytest.raises(AgentNotFound):
        agents.remove("nobody")


def test_tool_selection_per_server_id() -> None:
    agent = Agent(name="a", selected_tools={"s1": ["echo"], "s2": []})
    assert agent.allows_tool("s1", "echo") and not agent.allows_tool("s1", "add")
    assert not agent.allows_tool("s2", "echo")  # every tool of s2 unticked
    assert agent.allows_tool("s3", "anything")  # a server not listed gives all its tools
    assert Agent(name="b").allows_tool("s1", "x")


def test_corrupt_file_is_moved_aside_and_backup_loaded(tmp_path: Path) -> None:
    agents = store(tmp_path)
    agents.add(Agent(name="one"))
    agents.add(Agent(name="two"))  # .bak holds ["one"]
    agents.path.write_text('{"version": 1, "agents": [ {"name": ')
    reopened = store(tmp_path)
    assert [a.name for a in reopened.list()] == ["one"]
    assert "not valid JSON: Expecting value at line 1, column" in reopened.notices[0]
    assert ".bak" in reopened.notices[0]
    assert len(list(tmp_path.glob("agents.json.corrupt-*"))) == 1


def test_newer_version_refused_and_invalid_entry_kept(tmp_path: Path) -> None:
    path = tmp_path / "agents.json"
    text = json.dumps({"version": AGENTS_VERSION + 1, "agents": []})
    path.write_text(text)
    with pytest.raises(ConfigTooNew, match="newer Elftia"):
        AgentStore(path)
    assert path.read_text() == text
    bad = {"id": "agent_1_x", "name": "odd", "mcpMode": "sometimes"}
    path.write_text(json.dumps({"version": 1, "agents": [bad, {"name": "fine"}]}))
    agents = AgentStore(path)
    assert [a.name for a in agents.list()] == ["fine"]
    assert 'Agent #1 "odd"' in agents.notices[0] and "mcpMode" in agents.notices[0]
    agents.add(Agent(name="new"))
    assert bad in json.loads(path.read_text())["agents"]


WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from elftia_desktop.core.agent_store import AgentStore
    from elftia_desktop.core.models import Agent
    store = AgentStore(Path(sys.argv[1]))
    for i in range(int(sys.argv[3])):
        store.add(Agent(name=f"{sys.argv[2]}-{i}"))
    """
)


def test_two_processes_interleaving_updates_lose_none(tmp_path: Path) -> None:
    path = tmp_path / "agents.json"
    AgentStore(path)
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), tag, "60"], cwd=ROOT) for tag in ("a", "b")]
    deadline = time.monotonic() + 110
    for writer in writers:
        assert writer.wait(timeout=max(1.0, deadline - time.monotonic())) == 0
    names = sorted(a.name for a in AgentStore(path).list())
    assert names == sorted([f"a-{i}" for i in range(60)] + [f"b-{i}" for i in range(60)])


def test_fresh_install_gets_assistant_once(tmp_path: Path) -> None:
    seeded = seed_default_agent(store(tmp_path))
    assert seeded is not None and (seeded.name, seeded.mcp_mode) == ("Assistant", McpMode.AUTO)
    assert seed_default_agent(store(tmp_path)) is None
    store(tmp_path).remove("assistant")
    assert seed_default_agent(store(tmp_path)) is None  # the user deleted it: it stays deleted
    assert store(tmp_path).list() == []


def _catalog(tmp_path: Path) -> ServerCatalog:
    vault = SecretVault(fallback_path=tmp_path / "s.json")
    return ServerCatalog(ConfigStore(tmp_path / "mcp-config.json"), vault, store(tmp_path))


def test_removing_a_server_takes_it_out_of_agents_and_says_which(tmp_path: Path) -> None:
    catalog = _catalog(tmp_path)
    one = catalog.add(McpServerInput(name="one", config={"command": "uvx"}))
    two = catalog.add(McpServerInput(name="two", config={"command": "uvx"}))
    assert one is not None and two is not None
    agents = store(tmp_path)
    agents.add(Agent(name="Both", mcp_mode=McpMode.MANUAL, selected_servers=[one.id, two.id]))
    agents.add(Agent(name="Picky", selected_tools={one.id: ["echo"], two.id: ["add"]}))
    agents.add(Agent(name="Other", mcp_mode=McpMode.MANUAL, selected_servers=[two.id]))
    catalog.update(one.id, {"name": "renamed"})
    assert agents.get("both").selected_servers == [one.id, two.id]  # a rename changes nothing
    removed, lost = catalog.remove(one.id)
    assert removed.id == one.id
    assert [a.name for a in lost] == ["Both", "Picky"]
    assert agents.get("both").selected_servers == [two.id]
    assert agents.get("picky").selected_tools == {two.id: ["add"]}
    assert agents.get("other").selected_servers == [two.id]
    assert catalog.remove(two.id)[1] != []


def test_replacing_a_server_on_import_keeps_it_selected(tmp_path: Path) -> None:
    catalog = _catalog(tmp_path)
    old = catalog.add(McpServerInput(name="fs", config={"command": "uvx"}))
    assert old is not None
    agents = store(tmp_path)
    agents.add(Agent(name="A", mcp_mode=McpMode.MANUAL, selected_servers=[old.id], selected_tools={old.id: ["x"]}))
    new = catalog.add(McpServerInput(name="fs", config={"command": "npx"}), on_conflict="replace")
    assert new is not None and new.id != old.id
    agent = agents.get("a")
    assert agent.selected_servers == [new.id] and agent.selected_tools == {new.id: ["x"]}
