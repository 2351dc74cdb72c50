"""Issue 30 follow-up: start at login (``platform/autostart.py``) on Linux, macOS and Windows.

The entry's logic is checked for the three systems with the system, home and environment as values
(Windows' Run key as a dictionary); the Linux entry also end to end: ``daemon autostart --on`` in a
temporary HOME, ``desktop-file-validate`` on the file, and its Exec line run as a session would.
"""

from __future__ import annotations

import json
import plistlib
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from elftia_desktop.host import client
from elftia_desktop.platform import autostart
from elftia_desktop.platform.autostart import AutostartError, Machine
from tests.gateway.gateway_helpers import REPO, gateway_env

ARGV = ["/opt/My Apps/py$thon", "-m", "elftia_desktop.cli", "daemon", "run", "--stay"]
"""A command with characters the Exec key must quote (a space, a dollar)."""


class DictRunKey:
    """The Run key as a dictionary (the real one needs Windows)."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    def get(self, name: str) -> str | None:
        return self.values.get(name)

    def set(self, name: str, value: str) -> None:
        self.values[name] = value

    def delete(self, name: str) -> None:
        self.values.pop(name, None)


def parse_exec(line: str) -> list[str]:
    """The arguments of an Exec value, read back per the Desktop Entry spec (string escapes, then quoting)."""
    text = line.replace("\\\\", "\\")
    args: list[str] = []
    current: str | None = None
    quoted = escaped = False
    for char in text:
        if escaped:
            current, escaped = (current or "") + char, False
        elif quoted and char == "\\":
            escaped = True
        elif char == '"':
            quoted, current = not quoted, current or ""
        elif char == " " and not quoted:
            if current is not None:
                args.append(current)
            current = None
        else:
            current = (current or "") + char
    if current is not None:
        args.append(current)
    return [arg.replace("%%", "%") for arg in args]


def desktop_values(path: Path) -> dict[str, str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "[Desktop Entry]"
    return dict(line.split("=", 1) for line in lines[1:] if line)


def test_linux_entry_in_xdg_config_home_runs_the_staying_daemon_with_the_data_folder(tmp_path: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "conf"), "ELFTIA_DATA_DIR": str(tmp_path / "da\\ta 100%")}
    machine = Machine("linux", tmp_path / "home", env)
    assert not autostart.enabled(machine)
    state = autostart.enable(machine, ARGV)
    path = tmp_path / "conf" / "autostart" / "elftia-pool-host.desktop"
    assert state.enabled and state.where == str(path) and autostart.enabled(machine)
    values = desktop_values(path)
    assert values["Type"] == "Application" and values["NoDisplay"] == "true"
    assert values["X-GNOME-Autostart-enabled"] == "true"
    assert parse_exec(values["Exec"]) == ["env", f"ELFTIA_DATA_DIR={env['ELFTIA_DATA_DIR']}", *ARGV]
    assert autostart.disable(machine) and not path.exists() and not autostart.enabled(machine)
    assert not autostart.disable(machine)  # nothing left to remove


@pytest.mark.parametrize("switch", ["Hidden=true", "X-GNOME-Autostart-enabled=false"])
def test_an_entry_switched_off_in_the_desktops_settings_is_off_and_on_again_turns_it_on(
    tmp_path: Path, switch: str
) -> None:
    machine = Machine("linux", tmp_path, {})
    path = Path(autostart.enable(machine, ARGV).where)
    text = path.read_text(encoding="utf-8").replace("X-GNOME-Autostart-enabled=true\n", "")
    path.write_text(text + switch + "\n", encoding="utf-8")  # as a session manager writes it
    state = autostart.state(machine)
    assert not state.enabled and state.ours and not state.foreign
    assert autostart.enable(machine, ARGV).enabled and switch not in path.read_text(encoding="utf-8")
    path.write_text(path.read_text(encoding="utf-8") + switch + "\n", encoding="utf-8")
    assert autostart.disable(machine) and not path.exists()  # ours, though off: --off removes it


def test_a_launch_agent_marked_disabled_is_off(tmp_path: Path) -> None:
    machine = Machine("darwin", tmp_path, {})
    path = Path(autostart.enable(machine, ARGV).where)
    path.write_bytes(plistlib.dumps(plistlib.loads(path.read_bytes()) | {"Disabled": True}))
    assert not autostart.enabled(machine) and autostart.state(machine).ours


def test_linux_entry_defaults_to_dot_config_and_no_env_without_an_override(tmp_path: Path) -> None:
    machine = Machine("freebsd14", tmp_path, {})
    autostart.enable(machine, ARGV)
    path = tmp_path / ".config" / "autostart" / "elftia-pool-host.desktop"
    assert parse_exec(desktop_values(path)["Exec"]) == ARGV


@pytest.mark.parametrize("system", ["linux", "darwin"])
def test_an_entry_that_is_not_ours_is_never_overwritten_nor_removed(tmp_path: Path, system: str) -> None:
    machine = Machine(system, tmp_path, {})
    path = Path(autostart.location(machine))
    path.parent.mkdir(parents=True)
    foreign = (
        plistlib.dumps({"Label": "x", "ProgramArguments": ["other"]}) if system == "darwin" else b"[Desktop Entry]\n"
    )
    path.write_bytes(foreign)
    with pytest.raises(AutostartError, match="another program's entry"):
        autostart.enable(machine, ARGV)
    assert not autostart.disable(machine)
    state = autostart.state(machine)
    assert path.read_bytes() == foreign and state.foreign and not state.enabled


def test_macos_launch_agent(tmp_path: Path) -> None:
    machine = Machine("darwin", tmp_path, {"ELFTIA_DATA_DIR": "/Users/me/elftia data"})
    autostart.enable(machine, ARGV)
    path = tmp_path / "Library" / "LaunchAgents" / "app.elftia.pool-host.plist"
    plist = plistlib.loads(path.read_bytes())
    assert plist == {
        "Label": "app.elftia.pool-host",
        "ProgramArguments": ARGV,
        "RunAtLoad": True,
        "EnvironmentVariables": {"ELFTIA_DATA_DIR": "/Users/me/elftia data"},
    }
    assert autostart.enabled(machine)
    plain = Machine("darwin", tmp_path, {})
    autostart.enable(plain, ARGV)  # ours: rewritten, without the override now
    assert "EnvironmentVariables" not in plistlib.loads(path.read_bytes())
    assert autostart.disable(plain) and not path.exists()


def test_windows_run_value_is_one_quoted_command_line_with_the_data_folder(tmp_path: Path) -> None:
    key = DictRunKey()
    argv = [r"C:\Program Files\Elftia\elftia-mcp.exe", "daemon", "run", "--stay"]
    machine = Machine("win32", tmp_path, {"ELFTIA_DATA_DIR": r"D:\elftia data"}, registry=key)
    state = autostart.enable(machine, argv)
    assert state.where == r"HKEY_CURRENT_USER\Software\Microsoft\Windows\CurrentVersion\Run\Elftia pool host"
    assert key.values == {
        "Elftia pool host": r'"C:\Program Files\Elftia\elftia-mcp.exe" daemon run --stay --data-dir "D:\elftia data"'
    }
    assert autostart.enabled(machine) and autostart.disable(machine) and key.values == {}
    key.values["Elftia pool host"] = r"C:\other\program.exe"
    with pytest.raises(AutostartError):
        autostart.enable(machine, argv)
    assert not autostart.disable(machine) and key.values == {"Elftia pool host": r"C:\other\program.exe"}


def test_windows_entry_runs_pythonw_and_appends_its_log_to_the_file_named(tmp_path: Path) -> None:
    for name in ("python.exe", "pythonw.exe"):
        (tmp_path / name).write_bytes(b"")
    machine = Machine("win32", tmp_path, {}, registry=DictRunKey())
    args = autostart.command(machine, [str(tmp_path / "python.exe"), "-m", "x"], log=tmp_path / "host.log")
    assert args == [str(tmp_path / "pythonw.exe"), "-m", "x", "--log-file", str(tmp_path / "host.log")]
    assert autostart.command(Machine("linux", tmp_path, {}), [str(tmp_path / "python.exe")]) == [
        str(tmp_path / "python.exe")
    ]


def _cli(data_dir: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = gateway_env(data_dir) | {"HOME": str(home)}
    env.pop("XDG_CONFIG_HOME", None)
    return subprocess.run(
        [sys.executable, "-m", "elftia_desktop.cli", "daemon", "autostart", *args],
        env=env,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
    )


@pytest.mark.daemon
@pytest.mark.skipif(sys.platform != "linux", reason="the XDG autostart file and its Exec line run on Linux")
def test_linux_end_to_end_the_entry_starts_a_host_that_stays(tmp_path: Path, isolated_data_dir: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    off = json.loads(_cli(isolated_data_dir, home, "--json").stdout)
    path = home / ".config" / "autostart" / "elftia-pool-host.desktop"
    assert off == {"enabled": False, "where": str(path), "foreign": False, "ours": False}
    shown = _cli(isolated_data_dir, home, "--on")
    assert shown.returncode == 0 and f"start at login: on ({path})" in shown.stdout
    validator = shutil.which("desktop-file-validate")
    if validator is not None:
        checked = subprocess.run([validator, str(path)], capture_output=True, text=True, check=False)
        assert checked.returncode == 0 and not checked.stdout.strip(), checked.stdout
    session = parse_exec(desktop_values(path)["Exec"])
    env = gateway_env(isolated_data_dir)
    env.pop("ELFTIA_DATA_DIR")  # the entry itself carries the data folder
    host = subprocess.Popen(session, env=env, stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        status = None
        deadline = time.monotonic() + 120
        while status is None and host.poll() is None and time.monotonic() < deadline:
            status = client.control("status")
            time.sleep(0.05)
        assert status is not None and status["pid"] == host.pid and status["stays"] is True
        assert status["dataDir"] == str(isolated_data_dir)
    finally:
        client.control("stop")
        host.wait(60)
    log = (isolated_data_dir / "host.log").read_text(encoding="utf-8")  # --log-file: nobody sees its stderr
    assert f"pool host {host.pid} (daemon) listening" in log and f"pool host {host.pid} stopped" in log
    assert _cli(isolated_data_dir, home, "--off").returncode == 0 and not path.exists()
