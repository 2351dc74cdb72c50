"""Issue 35: every app's user config file on Linux, macOS and Windows, built from a faked home and OS.

The machine is a value (home folder, environment, ``sys.platform`` name) passed to the detector;
nothing here touches the real ``sys.platform``. Expected paths follow each app's own docs.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from elftia_desktop.integrations.app_config_file import user_config_path
from elftia_desktop.integrations.app_formats import APPS
from elftia_desktop.integrations.detector import Environment, candidate_locations, detect

Machine = Callable[..., Environment]

CLINE = "globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json"
MAC_SUPPORT = "Library/Application Support"
WIN_ROAMING = "AppData/Roaming"

EXPECTED: dict[str, dict[str, str]] = {
    "linux": {
        "claude-desktop": ".config/Claude/claude_desktop_config.json",
        "claude-code": ".claude.json",
        "cursor": ".cursor/mcp.json",
        "vscode": ".config/Code/User/mcp.json",
        "cline": f".config/Code/User/{CLINE}",
        "windsurf": ".codeium/windsurf/mcp_config.json",
        "lmstudio": ".lmstudio/mcp.json",
        "gemini": ".gemini/settings.json",
        "mcp-inspector": ".mcp-inspector/mcp.json",
        "jan": ".config/Jan/data/mcp_config.json",
    },
    "darwin": {
        "claude-desktop": f"{MAC_SUPPORT}/Claude/claude_desktop_config.json",
        "claude-code": ".claude.json",
        "cursor": ".cursor/mcp.json",
        "vscode": f"{MAC_SUPPORT}/Code/User/mcp.json",
        "cline": f"{MAC_SUPPORT}/Code/User/{CLINE}",
        "windsurf": ".codeium/windsurf/mcp_config.json",
        "lmstudio": ".lmstudio/mcp.json",
        "gemini": ".gemini/settings.json",
        "mcp-inspector": ".mcp-inspector/mcp.json",
        "jan": f"{MAC_SUPPORT}/Jan/data/mcp_config.json",
    },
    "win32": {
        "claude-desktop": f"{WIN_ROAMING}/Claude/claude_desktop_config.json",
        "claude-code": ".claude.json",
        "cursor": ".cursor/mcp.json",
        "vscode": f"{WIN_ROAMING}/Code/User/mcp.json",
        "cline": f"{WIN_ROAMING}/Code/User/{CLINE}",
        "windsurf": ".codeium/windsurf/mcp_config.json",
        "lmstudio": ".lmstudio/mcp.json",
        "gemini": ".gemini/settings.json",
        "mcp-inspector": ".mcp-inspector/mcp.json",
        "jan": f"{WIN_ROAMING}/Jan/data/mcp_config.json",
    },
}


def test_the_table_covers_every_app() -> None:
    assert all(set(paths) == set(APPS) for paths in EXPECTED.values())


@pytest.mark.parametrize("system", sorted(EXPECTED))
@pytest.mark.parametrize("app", sorted(APPS))
def test_first_user_location_per_os(app: str, system: str, home: Path, machine: Machine) -> None:
    """Where each app looks first, with no file anywhere: also where ``export`` writes a new one."""
    expected = home / EXPECTED[system][app]
    assert candidate_locations(app, machine(system))[0].path == expected
    assert user_config_path(app, machine(system)) == expected


@pytest.mark.parametrize("system", sorted(EXPECTED))
@pytest.mark.parametrize("app", sorted(APPS))
def test_a_file_at_that_place_is_detected(app: str, system: str, home: Path, machine: Machine) -> None:
    path = home / EXPECTED[system][app]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"mcpServers": {}, "servers": {}}', encoding="utf-8")
    found = [config.location.path for config in detect(machine(system), apps=[app])]
    assert found == [path]


def test_windows_variables_move_roaming_and_local(tmp_path: Path, home: Path, machine: Machine) -> None:
    roaming, local = tmp_path / "R", tmp_path / "L"
    windows = machine("win32", APPDATA=str(roaming), LOCALAPPDATA=str(local))
    assert user_config_path("vscode", windows) == roaming / "Code/User/mcp.json"
    assert user_config_path("claude-desktop", windows) == roaming / "Claude/claude_desktop_config.json"
    assert user_config_path("cursor", windows) == home / ".cursor/mcp.json"


def test_msix_package_without_a_config_yet_is_where_export_writes(tmp_path: Path, machine: Machine) -> None:
    """The packaged app never sees ``%APPDATA%``: with the package installed, the new file goes inside it."""
    local = tmp_path / "Local"
    (local / "Packages/Claude_pzs8sxrjxfjjc").mkdir(parents=True)
    (local / "Packages/ClaudeHelper_other").mkdir(parents=True)
    windows = machine("win32", APPDATA=str(tmp_path / "Roaming"), LOCALAPPDATA=str(local))
    msix = local / "Packages/Claude_pzs8sxrjxfjjc/LocalCache/Roaming/Claude/claude_desktop_config.json"
    assert user_config_path("claude-desktop", windows) == msix


def test_msix_package_that_has_a_config_wins_among_several(tmp_path: Path, machine: Machine) -> None:
    local = tmp_path / "Local"
    (local / "Packages/Claude_aaaa").mkdir(parents=True)
    used = local / "Packages/Claude_bbbb/LocalCache/Roaming/Claude/claude_desktop_config.json"
    used.parent.mkdir(parents=True)
    used.write_text('{"mcpServers": {}}', encoding="utf-8")
    windows = machine("win32", LOCALAPPDATA=str(local))
    assert [c.location.path for c in detect(windows, apps=["claude-desktop"])] == [used]


def test_linux_jan_in_the_xdg_data_folder_is_still_found(home: Path, machine: Machine) -> None:
    older = home / ".local/share/Jan/data/mcp_config.json"
    older.parent.mkdir(parents=True)
    older.write_text('{"mcpServers": {}}', encoding="utf-8")
    assert user_config_path("jan", machine("linux")) == older
