"""Issue 12: ``elftia-mcp gateway install|uninstall APP``: one entry, a backup and a diff, only ours removed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from elftia_desktop.cli import main
from elftia_desktop.core.agent_store import AgentStore
from elftia_desktop.core.models import Agent
from tests.gateway.gateway_helpers import (
    REPO,
    add_stdio,
    gateway_env,
    gateway_token_of,
    http_session,
    open_catalog,
    text_of,
)
from tests.host.host_helpers import cli

OTHER = {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "env": {"TOKEN": "theirs"}}


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder of its own (the apps' config files and the start at login entry go in it)."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    return folder


def claude_desktop_file(home: Path) -> Path:
    path = home / ".config" / "Claude" / "claude_desktop_config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the Linux location of Claude Desktop's file")
def test_install_backs_up_shows_a_diff_and_keeps_everything_else(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = claude_desktop_file(home)
    original = json.dumps({"globalShortcut": "Ctrl+Space", "mcpServers": {"memory": OTHER}}, indent=4)
    path.write_text(original, encoding="utf-8")
    assert main(["gateway", "install", "claude-desktop"]) == 0
    out = capsys.readouterr().out
    assert '+    "elftia": {' in out  # the diff
    assert "Backup of the previous file:" in out
    backups = list(path.parent.glob("claude_desktop_config.json.elftia-backup-*"))
    assert len(backups) == 1
    assert backups[0].read_text(encoding="utf-8") == original
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["globalShortcut"] == "Ctrl+Space"
    assert data["mcpServers"]["memory"] == OTHER
    entry = data["mcpServers"]["elftia"]
    assert entry["command"] == sys.executable
    assert entry["args"] == ["-m", "elftia_desktop.cli", "serve"]
    assert "type" not in entry  # Claude Desktop's format has none

    assert main(["gateway", "uninstall", "claude-desktop"]) == 0
    after = json.loads(path.read_text(encoding="utf-8"))
    assert after == {"globalShortcut": "Ctrl+Space", "mcpServers": {"memory": OTHER}}
    assert main(["gateway", "uninstall", "claude-desktop"]) == 2
    assert "there is no entry of Elftia's gateway to remove" in capsys.readouterr().err


def test_a_foreign_entry_is_never_touched(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mcp.json"
    text = json.dumps({"mcpServers": {"elftia": OTHER}})
    path.write_text(text, encoding="utf-8")
    assert main(["gateway", "install", "cursor", "--file", str(path)]) == 2
    assert "is not Elftia's gateway; choose another name with --name" in capsys.readouterr().err
    assert main(["gateway", "uninstall", "cursor", "--file", str(path)]) == 2
    assert "it was left alone" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == text
    assert main(["gateway", "install", "cursor", "--file", str(path), "--name", "elftia-gw"]) == 0
    assert set(json.loads(path.read_text(encoding="utf-8"))["mcpServers"]) == {"elftia", "elftia-gw"}


def test_vscode_format_agent_entry_and_dry_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    AgentStore().add(Agent(name="Research Bot"))
    path = tmp_path / "mcp.json"
    path.write_text('{\n  // mine\n  "servers": {},\n  "inputs": [],\n}\n', encoding="utf-8")
    assert main(["gateway", "install", "vscode", "--agent", "research bot", "--file", str(path), "--dry-run"]) == 0
    captured = capsys.readouterr()
    assert '"elftia-research-bot"' in captured.out
    assert "its comments are not kept" in captured.err
    assert "// mine" in path.read_text(encoding="utf-8")  # dry run: unchanged
    argv = ["gateway", "install", "vscode", "--agent", "Research Bot", "--file", str(path), "--json", "--stdio"]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["backup"] and Path(summary["backup"]).read_text(encoding="utf-8").startswith("{\n  // mine")
    entry = json.loads(path.read_text(encoding="utf-8"))["servers"]["elftia-research-bot"]
    assert entry["type"] == "stdio"
    assert entry["args"][-3:] == ["serve", "--agent", "Research Bot"]


def autostart_file(home: Path) -> Path:
    """The XDG autostart file of the pool host (Linux and BSD; ``home`` clears XDG_CONFIG_HOME)."""
    return home / ".config" / "autostart" / "elftia-pool-host.desktop"


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="the XDG autostart file")
def test_vscode_gets_the_hosts_url_and_asks_for_the_token(
    isolated_data_dir: Path, home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    AgentStore().add(Agent(name="Research Bot"))
    path = tmp_path / "mcp.json"
    path.write_text('{"servers": {}, "inputs": [{"id": "theirs", "type": "promptString"}]}', encoding="utf-8")
    assert main(["gateway", "install", "vscode", "--agent", "research bot", "--hub", "--file", str(path)]) == 0
    captured = capsys.readouterr()
    data = json.loads(path.read_text(encoding="utf-8"))
    port = json.loads((isolated_data_dir / "settings.json").read_text(encoding="utf-8"))["settings"]["gatewayHttpPort"]
    assert port > 0  # fixed, so the URL stays the host's
    assert data["servers"]["elftia-research-bot"] == {
        "type": "http",
        "url": f"http://127.0.0.1:{port}/agents/Research%20Bot/hub/mcp",
        "headers": {"Authorization": "Bearer ${input:elftia-gateway-token}"},
    }
    assert [i["id"] for i in data["inputs"]] == ["theirs", "elftia-gateway-token"]
    assert data["inputs"][1]["password"] is True
    assert f"HTTP port is fixed at {port}" in captured.err and "asks for the token once" in captured.err
    assert "reaches Elftia only while the pool host runs" in captured.err
    assert f"installing turns on start at login ({autostart_file(home)}" in captured.err
    assert "--stay" in autostart_file(home).read_text(encoding="utf-8")
    assert "the pool host is not started: ELFTIA_NO_DAEMON is set" in captured.out  # this test runs no host
    assert main(["gateway", "uninstall", "vscode", "--file", str(path)]) == 0  # recognised as the gateway's
    assert json.loads(path.read_text(encoding="utf-8"))["servers"] == {}
    assert "no other app's file has Elftia's HTTP address now; turn it off: elftia-mcp daemon autostart --off" in (
        capsys.readouterr().err
    )
    assert autostart_file(home).exists()  # not turned off silently


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="the XDG autostart file")
def test_uninstalling_one_http_entry_names_the_apps_that_still_have_one(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["gateway", "install", "cursor"]) == 0  # the app's own file in this home
    assert main(["gateway", "install", "windsurf", "--file", str(tmp_path / "w.json")]) == 0
    capsys.readouterr()
    assert main(["gateway", "uninstall", "windsurf", "--file", str(tmp_path / "w.json")]) == 0
    err = capsys.readouterr().err
    assert "start at login stays on" in err and "the config of Cursor has Elftia's HTTP address" in err
    assert main(["gateway", "uninstall", "cursor"]) == 0
    assert "turn it off: elftia-mcp daemon autostart --off" in capsys.readouterr().err


def test_no_autostart_leaves_start_at_login_off(home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cursor.json"
    assert main(["gateway", "install", "cursor", "--no-autostart", "--file", str(path)]) == 0
    captured = capsys.readouterr()
    assert "start at login stays as it is (--no-autostart)" in captured.err
    assert not autostart_file(home).exists() and "pool host" not in captured.out
    assert main(["gateway", "uninstall", "cursor", "--file", str(path)]) == 0
    assert "autostart --off" not in capsys.readouterr().err  # nothing to turn off


def test_an_app_without_a_placeholder_gets_the_token_and_the_plan_says_so(
    isolated_data_dir: Path, home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "mcp.json"
    assert main(["gateway", "token", "--json"]) == 0
    token = json.loads(capsys.readouterr().out)["token"]
    assert main(["gateway", "install", "lmstudio", "--file", str(path)]) == 0
    captured = capsys.readouterr()
    entry = json.loads(path.read_text(encoding="utf-8"))["mcpServers"]["elftia"]
    assert entry["headers"] == {"Authorization": f"Bearer {token}"} and entry["url"].endswith("/mcp")
    assert token not in captured.out and '"Bearer ***"' in captured.out  # the diff hides it
    assert f"the bearer token is written into {path} in plain text" in captured.err
    assert main(["gateway", "install", "cursor", "--file", str(tmp_path / "cursor.json")]) == 0
    cursor = json.loads((tmp_path / "cursor.json").read_text(encoding="utf-8"))["mcpServers"]["elftia"]
    assert cursor == {"url": entry["url"], "headers": {"Authorization": "Bearer ${env:ELFTIA_GATEWAY_TOKEN}"}}
    captured = capsys.readouterr()
    assert "reads the token from the variable ELFTIA_GATEWAY_TOKEN" in captured.err
    assert "start at login is on already" in captured.err  # turned on by the first install


def test_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gateway", "install", "notepad"]) == 2
    assert "choose one of claude-desktop, claude-code, cursor, vscode, windsurf, lmstudio" in capsys.readouterr().err
    assert main(["gateway", "install", "cursor", "--agent", "ghost", "--file", str(tmp_path / "x.json")]) == 2
    assert '--agent: No agent named "ghost"' in capsys.readouterr().err
    broken = tmp_path / "broken.json"
    broken.write_text('{"mcpServers": {"a": }', encoding="utf-8")
    assert main(["gateway", "install", "windsurf", "--file", str(broken)]) == 2
    assert "line 1" in capsys.readouterr().err
    assert broken.read_text(encoding="utf-8") == '{"mcpServers": {"a": }'


@pytest.mark.anyio
async def test_the_installed_entry_runs_this_gateway(
    tmp_path: Path, isolated_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    add_stdio(open_catalog(isolated_data_dir), "alpha", "basic")
    path = tmp_path / ".claude.json"
    assert main(["gateway", "install", "claude-code", "--file", str(path), "--stdio"]) == 0
    entry = json.loads(path.read_text(encoding="utf-8"))["mcpServers"]["elftia"]
    assert entry["type"] == "stdio"
    assert entry["env"] == {"ELFTIA_DATA_DIR": str(isolated_data_dir)}
    env = gateway_env(isolated_data_dir) | entry["env"] | {"PYTHONPATH": str(REPO)}
    params = StdioServerParameters(command=entry["command"], args=entry["args"], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        assert "alpha__echo" in [t.name for t in (await session.list_tools()).tools]


def test_entry_and_token_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gateway", "entry", "vscode", "--hub"]) == 0
    entry = json.loads(capsys.readouterr().out)["servers"]["elftia"]
    assert entry["type"] == "stdio"
    assert entry["args"][-2:] == ["serve", "--hub"]
    assert main(["gateway", "token", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["header"] == f"Authorization: Bearer {first['token']}"
    assert main(["gateway", "token", "--reset"]) == 0
    assert capsys.readouterr().out.strip() not in ("", first["token"])


@pytest.mark.anyio
@pytest.mark.daemon
@pytest.mark.timeout(120)
async def test_the_installed_http_entry_reaches_the_pool_host(
    tmp_path: Path, home: Path, isolated_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    add_stdio(open_catalog(isolated_data_dir), "alpha", "basic")
    path = tmp_path / ".claude.json"
    assert main(["gateway", "install", "claude-code", "--file", str(path)]) == 0
    entry = json.loads(path.read_text(encoding="utf-8"))["mcpServers"]["elftia"]
    assert entry["type"] == "http" and entry["headers"] == {"Authorization": "Bearer ${ELFTIA_GATEWAY_TOKEN}"}
    assert "and stays until stopped" in capsys.readouterr().out  # installing started the host that stays
    status = json.loads(cli(isolated_data_dir, "daemon", "status", "--json").stdout)
    assert status["running"] and status["stays"] is True  # it listens on the port fixed by install
    token = gateway_token_of(isolated_data_dir)  # what the app puts in ELFTIA_GATEWAY_TOKEN
    async with http_session(entry["url"], token) as (session, _):
        assert text_of(await session.call_tool("alpha__echo", {"text": "via http"})) == "via http"


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="the XDG autostart file")
def test_an_unreadable_start_at_login_entry_stops_the_install_before_anything_is_written(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    autostart_file(home).mkdir(parents=True)  # a folder where the file goes: it cannot be read
    path = tmp_path / "cursor.json"
    assert main(["gateway", "install", "cursor", "--file", str(path)]) == 2
    err = capsys.readouterr().err
    assert "start at login:" in err and "cannot be read" in err and "--no-autostart skips it" in err
    assert not path.exists()
    assert main(["gateway", "install", "cursor", "--no-autostart", "--file", str(path)]) == 0
    assert path.exists()
