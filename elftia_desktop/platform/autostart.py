"""Start at login: the entry that runs ``elftia-mcp daemon run --stay`` when the user logs in.

Apps given the pool host's HTTP URL (``gateway install``) reach Elftia only while a host runs; this
entry starts one that stays. Where it lives:

* Linux and BSD: the XDG autostart file ``$XDG_CONFIG_HOME/autostart/elftia-pool-host.desktop``
  (``~/.config`` when the variable is unset), marked ours by ``X-Elftia-Pool-Host=true``;
* macOS: the LaunchAgent ``~/Library/LaunchAgents/app.elftia.pool-host.plist`` (``RunAtLoad``);
* Windows: the value ``Elftia pool host`` of ``HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run``.

The data folder override ``ELFTIA_DATA_DIR`` is carried when set (``env`` in the Exec line, the
plist's ``EnvironmentVariables``, ``--data-dir`` on Windows, whose Run key has no environment), and
the host's log goes to the file the caller names (``--log-file``); on Windows ``pythonw.exe`` runs
it when there is one, so no console window opens at login.
Every function takes the system, the home folder and the environment as values (:class:`Machine`);
an entry of the same name that is not ours is never overwritten nor removed.
"""

from __future__ import annotations

import os
import plistlib
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from elftia_desktop.platform.own_command import cli_argv

DATA_DIR_ENV = "ELFTIA_DATA_DIR"
"""The data folder override the entry carries when set."""
DESKTOP_FILE = "elftia-pool-host.desktop"
MARK = "X-Elftia-Pool-Host"
"""The key that marks the XDG autostart file as ours."""
LAUNCH_AGENT = "app.elftia.pool-host"
RUN_KEY = r"Software\Microsoft\Windows\CurrentVersion\Run"
RUN_VALUE = "Elftia pool host"
STAY_ARGS = ("daemon", "run", "--stay")
_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")
"""Characters that make an Exec argument need quotes (Desktop Entry spec, "The Exec key")."""


class AutostartError(Exception):
    """The entry cannot be written or removed: another program's entry sits there, or the file is unreadable."""


class RunKey(Protocol):
    """The string values of the current user's Run key (Windows)."""

    def get(self, name: str) -> str | None:
        """The value ``name``; None when there is none."""

    def set(self, name: str, value: str) -> None:
        """Write the value ``name``."""

    def delete(self, name: str) -> None:
        """Remove the value ``name``."""


class WindowsRunKey:
    """``HKCU\\...\\CurrentVersion\\Run`` through ``winreg`` (imported when used: it exists on Windows only)."""

    def get(self, name: str) -> str | None:
        """The value ``name``; None when there is none."""
        if sys.platform != "win32":
            raise OSError("the Run key exists on Windows only")
        import winreg

        try:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, RUN_KEY) as key:
                value, _kind = winreg.QueryValueEx(key, name)
        except FileNotFoundError:
            return None
        return str(value)

    def set(self, name: str, value: str) -> None:
        """Write the value ``name`` (a ``REG_SZ``)."""
        if sys.platform != "win32":
            raise OSError("the Run key exists on Windows only")
        import winreg

        with winreg.CreateKey(winreg.HKEY_CURRENT_USER, RUN_KEY) as key:
            winreg.SetValueEx(key, name, 0, winreg.REG_SZ, value)

    def delete(self, name: str) -> None:
        """Remove the value ``name`` (nothing when it is not there)."""
        if sys.platform != "win32":
            raise OSError("the Run key exists on Windows only")
        import winreg

        try:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, RUN_KEY, 0, winreg.KEY_SET_VALUE) as key:
                winreg.DeleteValue(key, name)
        except FileNotFoundError:
            pass


@dataclass(frozen=True)
class Machine:
    """Where the entry goes: the system (``sys.platform``), the home folder, the environment."""

    system: str
    home: Path
    env: Mapping[str, str]
    registry: RunKey | None = field(default=None, compare=False)
    """Windows' Run key (None: the real one)."""

    @classmethod
    def current(cls) -> Machine:
        """This process's machine."""
        return cls(sys.platform, Path.home(), dict(os.environ))

    def run_key(self) -> RunKey:
        """The Run key to read and write."""
        return self.registry if self.registry is not None else WindowsRunKey()


@dataclass(frozen=True)
class AutostartState:
    """Whether the entry is there and ours, and where it lives."""

    enabled: bool
    where: str
    """The file's path, or the registry value's location."""
    foreign: bool = False
    """Another program's entry has our name: it is left alone."""
    ours: bool = False
    """Our entry is there (switched off, it is not ``enabled``: ``Hidden``, ``X-GNOME-Autostart-enabled=false``,
    the plist's ``Disabled``)."""


def command(machine: Machine, argv: list[str] | None = None, log: Path | None = None) -> list[str]:
    """The command the entry runs (``argv``: ``elftia-mcp daemon run --stay`` of this installation;
    ``log``: the file its log is appended to, as nobody sees a login item's stderr)."""
    base = list(argv if argv is not None else cli_argv(*STAY_ARGS))
    windowless = Path(base[0]).with_name("pythonw.exe")
    if machine.system == "win32" and Path(base[0]).name.lower() == "python.exe" and windowless.exists():
        base[0] = str(windowless)  # no console window at login
    data = machine.env.get(DATA_DIR_ENV)
    extra = ["--data-dir", data] if data and machine.system == "win32" else []
    return [*base, *extra, *(["--log-file", str(log)] if log is not None else [])]


def location(machine: Machine) -> str:
    """Where the entry lives on ``machine``."""
    if machine.system == "win32":
        return f"HKEY_CURRENT_USER\\{RUN_KEY}\\{RUN_VALUE}"
    if machine.system == "darwin":
        return str(machine.home / "Library" / "LaunchAgents" / f"{LAUNCH_AGENT}.plist")
    config = machine.env.get("XDG_CONFIG_HOME") or str(machine.home / ".config")
    return str(Path(config) / "autostart" / DESKTOP_FILE)


def exec_line(args: list[str]) -> str:
    """``args`` as a Desktop Entry ``Exec`` value: quoted per the spec, then escaped as a string value."""
    quoted = []
    for arg in args:
        arg = arg.replace("%", "%%")
        if arg and not _RESERVED & set(arg):
            quoted.append(arg)
            continue
        inner = "".join("\\" + c if c in '"`$\\' else c for c in arg)
        quoted.append(f'"{inner}"')
    return " ".join(quoted).replace("\\", "\\\\")


def desktop_entry(machine: Machine, args: list[str]) -> str:
    """The XDG autostart file's text."""
    data = machine.env.get(DATA_DIR_ENV)
    run = ["env", f"{DATA_DIR_ENV}={data}", *args] if data else args
    return (
        "[Desktop Entry]\n"
        "Type=Application\n"
        "Name=Elftia pool host\n"
        "Comment=Keeps Elftia's MCP gateway reachable for apps that use its HTTP address\n"
        f"Exec={exec_line(run)}\n"
        "Terminal=false\n"
        "NoDisplay=true\n"
        "X-GNOME-Autostart-enabled=true\n"
        f"{MARK}=true\n"
    )


def launch_agent(machine: Machine, args: list[str]) -> bytes:
    """The LaunchAgent's plist."""
    plist: dict[str, object] = {"Label": LAUNCH_AGENT, "ProgramArguments": args, "RunAtLoad": True}
    data = machine.env.get(DATA_DIR_ENV)
    if data:
        plist["EnvironmentVariables"] = {DATA_DIR_ENV: data}
    return plistlib.dumps(plist)


def _ours_text(machine: Machine, text: str) -> bool:
    """Whether an existing entry (file text, or the Run value) is ours."""
    if machine.system == "win32":
        return " ".join(STAY_ARGS) in text
    if machine.system == "darwin":
        try:
            plist = plistlib.loads(text.encode())
        except (plistlib.InvalidFileException, ValueError):
            return False
        args = plist.get("ProgramArguments") if isinstance(plist, dict) else None
        return isinstance(args, list) and _has_stay(args)
    return f"\n{MARK}=true" in f"\n{text}"


def _has_stay(args: list[object]) -> bool:
    n = len(STAY_ARGS)
    return any(tuple(args[i : i + n]) == STAY_ARGS for i in range(len(args) - n + 1))


def _current(machine: Machine) -> str | None:
    """The entry there now (file text, or the Run value); None when there is none."""
    if machine.system == "win32":
        return machine.run_key().get(RUN_VALUE)
    path = Path(location(machine))
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise AutostartError(f"{path}: cannot be read: {exc}") from exc


def _switched_off(machine: Machine, text: str) -> bool:
    """Whether the user switched our entry off in the desktop's settings (the entry stays)."""
    if machine.system == "darwin":
        return plistlib.loads(text.encode()).get("Disabled") is True  # ours: it parsed already
    lines = {line.strip() for line in text.splitlines()}
    return machine.system != "win32" and bool(lines & {"Hidden=true", "X-GNOME-Autostart-enabled=false"})


def state(machine: Machine) -> AutostartState:
    """Whether start at login is on, and where its entry lives."""
    current = _current(machine)
    ours = current is not None and _ours_text(machine, current)
    on = ours and current is not None and not _switched_off(machine, current)
    return AutostartState(on, location(machine), foreign=current is not None and not ours, ours=ours)


def enabled(machine: Machine) -> bool:
    """Whether our entry is there."""
    return state(machine).enabled


def enable(machine: Machine, argv: list[str] | None = None, log: Path | None = None) -> AutostartState:
    """Write our entry (again, with this installation's command, see :func:`command`); ``AutostartError``
    when another's is there."""
    where = location(machine)
    if state(machine).foreign:
        raise AutostartError(f"{where} holds another program's entry; it was left alone")
    args = command(machine, argv, log)
    if machine.system == "win32":
        machine.run_key().set(RUN_VALUE, subprocess.list2cmdline(args))
        return state(machine)
    path = Path(where)
    path.parent.mkdir(parents=True, exist_ok=True)
    body = launch_agent(machine, args) if machine.system == "darwin" else desktop_entry(machine, args).encode()
    partial = path.with_name(path.name + ".new")
    partial.write_bytes(body)
    os.replace(partial, path)
    return state(machine)


def disable(machine: Machine) -> bool:
    """Remove our entry; False when there was none of ours (another program's entry is left alone)."""
    if not state(machine).ours:
        return False
    if machine.system == "win32":
        machine.run_key().delete(RUN_VALUE)
    else:
        Path(location(machine)).unlink(missing_ok=True)
    return True
