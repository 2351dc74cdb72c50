"""Server CRUD on the store: unique names, conflicts, immutable ids, trust that follows the launch."""

from __future__ import annotations

import pytest

from elftia_desktop.core.catalog import ServerCatalog, free_name
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.errors import ConfigError, DuplicateServerName, ServerNotFound
from elftia_desktop.core.models import McpServerInput
from elftia_desktop.core.secrets import SecretVault
from elftia_desktop.core.trust import describe_launch, launch_changes, needs_confirmation


@pytest.fixture
def servers(tmp_path) -> ServerCatalog:  # type: ignore[no-untyped-def]
    return ServerCatalog(ConfigStore(tmp_path / "c.json"), SecretVault(fallback_path=tmp_path / "s.json"))


def stdio(name: str, command: str = "npx", **extra: object) -> McpServerInput:
    return McpServerInput.model_validate({"name": name, "config": {"command": command, "args": ["-y", "pkg"]}} | extra)


def test_names_are_unique_case_insensitively(servers: ServerCatalog) -> None:
    servers.add(stdio("Files"))
    with pytest.raises(DuplicateServerName, match='name: a server named "Files" exists already'):
        servers.add(stdio("files"))
    assert [r.name for r in servers.all()] == ["Files"]


def test_conflict_policies(servers: ServerCatalog) -> None:
    first = servers.add(stdio("files"))
    renamed = servers.add(stdio("FILES"), on_conflict="rename")
    assert renamed is not None and renamed.name == "FILES (2)"
    assert servers.add(stdio("files"), on_conflict="skip") is None
    replaced = servers.add(stdio("files", command="uvx"), on_conflict="replace")
    assert first is not None and replaced is not None and replaced.id != first.id
    assert sorted((r.name, r.config.command) for r in servers.all()) == [("FILES (2)", "npx"), ("files", "uvx")]
    assert free_name("a", {"a", "a (2)"}) == "a (3)"


def test_update_merges_keeps_id_and_sets_updated_at(servers: ServerCatalog) -> None:
    record = servers.add(stdio("files"))
    assert record is not None
    before, after = servers.update(record.id, {"config": {"args": ["-y", "other"]}, "disabledTools": ["rm"]})
    assert after.id == record.id and after.created_at == record.created_at
    assert after.updated_at is not None and after.config.command == "npx" and after.config.args == ["-y", "other"]
    assert after.disabled_tools == ["rm"] and before.config.args == ["-y", "pkg"]
    with pytest.raises(ConfigError, match="id: cannot be changed"):
        servers.update(record.id, {"id": "other"})
    with pytest.raises(ConfigError, match=r"config\.command"):
        servers.update(record.id, {"config": {"command": ""}})
    with pytest.raises(ServerNotFound):
        servers.update("mcp_0_missing", {"isActive": False})
    assert servers.get(record.id).config.args == ["-y", "other"]


def test_update_cannot_steal_a_name(servers: ServerCatalog) -> None:
    servers.add(stdio("a"))
    b = servers.add(stdio("b"))
    assert b is not None
    with pytest.raises(DuplicateServerName):
        servers.update(b.id, {"name": "A"})


def test_find_by_name_or_id(servers: ServerCatalog) -> None:
    record = servers.add(stdio("My Server"))
    assert record is not None
    assert servers.find("my server").id == record.id and servers.find(record.id).id == record.id
    with pytest.raises(ServerNotFound, match="servers: My Server"):
        servers.find("nope")


def test_imported_server_needs_confirmation_and_changed_launch_asks_again(servers: ServerCatalog) -> None:
    record = servers.add(stdio("tool"))
    assert record is not None and needs_confirmation(record)
    _, trusted = servers.update(record.id, {"isTrusted": True})
    assert not needs_confirmation(trusted) and trusted.trusted_launch == {
        "transport": "stdio",
        "command": "npx",
        "args": ["-y", "pkg"],
        "cwd": None,
        "env": {},
        "sandbox": None if trusted.sandbox is None else trusted.sandbox.fingerprint(),  # imports: sandboxed by default
    }
    _, renamed = servers.update(record.id, {"name": "tool2"})
    assert renamed.is_trusted  # a new name does not change what runs
    _, changed = servers.update(record.id, {"config": {"args": ["-y", "evil"]}})
    assert not changed.is_trusted and needs_confirmation(changed)
    assert launch_changes(changed) == [("args", ["-y", "pkg"], ["-y", "evil"])]


def test_trust_prompt_never_shows_secret_values(servers: ServerCatalog) -> None:
    record = servers.add(stdio("gh", **{"config": {"command": "npx", "env": {"GH_TOKEN": "abc123", "MODE": "x"}}}))
    assert record is not None
    rows = dict(describe_launch(record))
    assert rows["Command"] == "npx" and rows["Environment"] == "GH_TOKEN=(secret), MODE=x"
    assert "abc123" not in repr(rows)
