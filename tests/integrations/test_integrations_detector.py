"""Finding other apps' config files: every location from a temporary HOME, per platform."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from elftia_desktop.integrations.detector import (
    ConfigLocation,
    Environment,
    candidate_locations,
    detect,
    read_config,
)
from elftia_desktop.integrations.jsonc import strip_jsonc

Machine = Callable[..., Environment]
Place = Callable[[str, Path], Path]


def _paths(found: list) -> dict[str, list[Path]]:
    out: dict[str, list[Path]] = {}
    for config in found:
        out.setdefault(config.location.app, []).append(config.location.path)
    return out


def test_linux_user_files_of_every_app(home: Path, machine: Machine, place: Place) -> None:
    vscode_user = home / ".config" / "Code" / "User"
    files = {
        "claude-desktop": place("claude_desktop_config.json", home / ".config/Claude/claude_desktop_config.json"),
        "claude-code": place("claude.json", home / ".claude.json"),
        "cursor": place("cursor_mcp.json", home / ".cursor/mcp.json"),
        "vscode": place("vscode_mcp.json", vscode_user / "mcp.json"),
        "cline": place(
            "cline_mcp_settings.json",
            vscode_user / "globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
        ),
        "windsurf": place("windsurf_mcp_config.json", home / ".codeium/windsurf/mcp_config.json"),
        "lmstudio": place("lmstudio_mcp.json", home / ".lmstudio/mcp.json"),
        "gemini": place("gemini_settings.json", home / ".gemini/settings.json"),
        "mcp-inspector": place("inspector_mcp.json", home / ".mcp-inspector/mcp.json"),
        "jan": place("jan_mcp_config.json", home / ".local/share/Jan/data/mcp_config.json"),
    }
    found = detect(machine("linux"))
    assert _paths(found) == {app: [path] for app, path in files.items()}
    by_app = {c.location.app: c for c in found}
    assert by_app["claude-code"].server_names == ["sentry", "airtable", "stripe"]
    assert by_app["vscode"].server_names == ["Perplexity", "Github", "fetch"]
    assert by_app["jan"].server_names == ["olostep", "exa", "Jan Browser MCP"]
    assert all(c.error is None for c in found)


def test_macos_locations(home: Path, machine: Machine, place: Place) -> None:
    support = home / "Library" / "Application Support"
    desktop = place("claude_desktop_config.json", support / "Claude/claude_desktop_config.json")
    vscode = place("vscode_mcp.json", support / "Code - Insiders/User/mcp.json")
    cline = place(
        "cline_mcp_settings.json",
        support / "Cursor/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
    )
    jan = place("jan_mcp_config.json", support / "Jan/data/mcp_config.json")
    assert _paths(detect(machine("darwin"))) == {
        "claude-desktop": [desktop],
        "vscode": [vscode],
        "cline": [cline],
        "jan": [jan],
    }


def test_windows_msix_copy_of_claude_desktop_wins(tmp_path: Path, machine: Machine, place: Place) -> None:
    appdata, local = tmp_path / "Roaming", tmp_path / "Local"
    env = {"APPDATA": str(appdata), "LOCALAPPDATA": str(local)}
    classic = place("claude_desktop_config.json", appdata / "Claude/claude_desktop_config.json")
    assert _paths(detect(machine("win32", **env)))["claude-desktop"] == [classic]

    msix = local / "Packages/Claude_pzs8sxrjxfjjc/LocalCache/Roaming/Claude/claude_desktop_config.json"
    place("claude_desktop_config.json", msix)
    assert _paths(detect(machine("win32", **env)))["claude-desktop"] == [msix]


def test_windows_appdata_apps_and_home_dotfiles(tmp_path: Path, home: Path, machine: Machine, place: Place) -> None:
    appdata = tmp_path / "Roaming"
    vscode = place("vscode_mcp.json", appdata / "Code/User/mcp.json")
    jan = place("jan_mcp_config.json", appdata / "Jan/data/mcp_config.json")
    windsurf = place("windsurf_mcp_config.json", home / ".codeium/windsurf/mcp_config.json")
    found = _paths(detect(machine("win32", APPDATA=str(appdata))))
    assert found == {"vscode": [vscode], "jan": [jan], "windsurf": [windsurf]}


def test_env_overrides_xdg_and_claude_config_dir(tmp_path: Path, machine: Machine, place: Place) -> None:
    xdg_config, xdg_data, claude_dir = tmp_path / "xdgc", tmp_path / "xdgd", tmp_path / "claude-cfg"
    desktop = place("claude_desktop_config.json", xdg_config / "Claude/claude_desktop_config.json")
    jan = place("jan_mcp_config.json", xdg_data / "Jan/data/mcp_config.json")
    code = place("claude.json", claude_dir / ".claude.json")
    env = {"XDG_CONFIG_HOME": str(xdg_config), "XDG_DATA_HOME": str(xdg_data), "CLAUDE_CONFIG_DIR": str(claude_dir)}
    assert _paths(detect(machine("linux", **env))) == {"claude-desktop": [desktop], "claude-code": [code], "jan": [jan]}


def test_project_files_and_claude_code_known_projects(
    tmp_path: Path, home: Path, machine: Machine, place: Place
) -> None:
    project, known = tmp_path / "proj", tmp_path / "known"
    place("project.mcp.json", project / ".mcp.json")
    place("cursor_mcp.json", project / ".cursor/mcp.json")
    place("vscode_mcp.json", project / ".vscode/mcp.json")
    place("gemini_settings.json", project / ".gemini/settings.json")
    place("project.mcp.json", known / ".mcp.json")
    (home / ".claude.json").write_text(
        (Path(__file__).parent / "samples/claude.json").read_text().replace("PROJECT_DIR", str(known))
    )
    found = detect(machine("linux"), projects=[project])
    project_files = {(c.location.app, c.location.path) for c in found if c.location.scope == "project"}
    assert project_files == {
        ("claude-code", project / ".mcp.json"),
        ("claude-code", known / ".mcp.json"),
        ("cursor", project / ".cursor/mcp.json"),
        ("vscode", project / ".vscode/mcp.json"),
        ("gemini", project / ".gemini/settings.json"),
    }
    claude_user = next(c for c in found if c.location.app == "claude-code" and c.location.scope == "user")
    local = [s for s in claude_user.sections if s.scope == "local"]
    assert [(s.project_path, list(s.entries)) for s in local] == [(str(known), ["stripe"])]


def test_broken_json_reports_file_line_and_column(home: Path, machine: Machine) -> None:
    path = home / ".cursor" / "mcp.json"
    path.parent.mkdir()
    path.write_text('{\n  "mcpServers": {\n    "a": {"command": "x"}\n    "b": {"command": "y"}\n  }\n}\n')
    (config,) = detect(machine("linux"))
    assert config.error is not None and str(path) in config.error
    assert (config.line, config.column) == (4, 5)
    assert "Expecting ',' delimiter at line 4, column 5" in config.error
    assert config.to_json_dict()["line"] == 4


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1, 2]", "expected a JSON object at the top, got a list"),
        ('{"mcpServers": [{"command": "x"}]}', '"mcpServers" must be an object of name: server entries, got a list'),
    ],
)
def test_wrong_shapes_are_named(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(text)
    config = read_config(ConfigLocation("cursor", path))
    assert config is not None and config.error == f"{path}: {message}"


def test_missing_file_is_not_reported_and_unreadable_is(tmp_path: Path) -> None:
    assert read_config(ConfigLocation("cursor", tmp_path / "nope.json")) is None
    folder = tmp_path / "dir.json"
    folder.mkdir()
    config = read_config(ConfigLocation("cursor", folder))
    assert config is not None and config.error is not None and "cannot be read" in config.error


def test_jsonc_comments_and_trailing_commas_keep_positions() -> None:
    text = '{\n  // a "comment"\n  "u": "http://x//y", /* b */\n  "l": [1, 2,],\n}'
    stripped = strip_jsonc(text)
    assert len(stripped) == len(text) and stripped.count("\n") == text.count("\n")
    assert '"http://x//y"' in stripped and "comment" not in stripped
    import json

    assert json.loads(stripped) == {"u": "http://x//y", "l": [1, 2]}


def test_candidate_locations_lists_every_cline_flavour(machine: Machine) -> None:
    paths = [str(loc.path) for loc in candidate_locations("cline", machine("linux"))]
    assert any("/Code/User/globalStorage/saoudrizwan.claude-dev/settings/" in p for p in paths)
    assert any("/Windsurf/User/globalStorage/" in p for p in paths)
    assert paths[-1].endswith(".cline/data/settings/cline_mcp_settings.json")
    with pytest.raises(KeyError, match="unknown app 'notepad'"):
        candidate_locations("notepad", machine("linux"))
