"""The ``elftia://`` URL scheme and the ``.mcpb`` file type: what is registered, and its registration by the app.

One place for the values: the Windows installer script (``packaging/os_bundles.py``) and the app's
own first start write the same registry values. A bundle the user unpacked and started without an
installer registers itself once (:func:`register_this_app`, from a worker thread):

* **Windows**: ``HKCU\\Software\\Classes`` through ``winreg`` (no admin rights). The scheme and our
  ProgID are written when missing, or when they name a program that no longer exists; one naming
  another existing program (an installed copy, another app) is left alone. ``.mcpb``/``.dxt`` get
  our ProgID in ``OpenWithProgids`` only: another app's default for the extension is never touched.
* **Linux**: ``~/.local/share/applications/elftia-desktop.desktop`` by the same rule, then
  ``xdg-mime default`` for ``x-scheme-handler/elftia`` when no handler is set.
* **macOS**: nothing to do at run time: the ``.app``'s ``Info.plist`` declares both to LaunchServices.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

log = logging.getLogger(__name__)

APP_NAME = "Elftia Desktop"
URL_SCHEME = "elftia"
"""The links ``core/install_link.py`` reads."""
BUNDLE_EXTENSIONS = ("mcpb", "dxt")
"""MCP bundle files (``.dxt`` is the format's former name); the app takes their paths as arguments."""
PROG_ID = "ElftiaDesktop.mcpb"
CLASSES = "Software\\Classes"
DESKTOP_FILE = "elftia-desktop.desktop"
SCHEME_MIME = f"x-scheme-handler/{URL_SCHEME}"


@dataclass(frozen=True)
class RegistryValue:
    """One value under ``HKCU\\Software\\Classes`` (``name`` "" is the key's default value)."""

    subkey: str
    name: str
    data: str
    delete_key_on_uninstall: bool = False


def open_command(exe: str) -> str:
    """``"<exe>" "%1"``: the link or file as the program's one argument."""
    return f'"{exe}" "%1"'


def scheme_values(exe: str) -> list[RegistryValue]:
    """The ``elftia://`` scheme's key for the program at ``exe`` (a path or an Inno constant)."""
    scheme = f"{CLASSES}\\{URL_SCHEME}"
    return [
        RegistryValue(scheme, "", f"URL:{APP_NAME} install link", delete_key_on_uninstall=True),
        RegistryValue(scheme, "URL Protocol", ""),
        RegistryValue(f"{scheme}\\DefaultIcon", "", f'"{exe}",0'),
        RegistryValue(f"{scheme}\\shell\\open\\command", "", open_command(exe)),
    ]


def prog_id_values(exe: str) -> list[RegistryValue]:
    """Our ProgID for MCP bundles, opening them with the program at ``exe``."""
    prog = f"{CLASSES}\\{PROG_ID}"
    return [
        RegistryValue(prog, "", "MCP Bundle", delete_key_on_uninstall=True),
        RegistryValue(f"{prog}\\DefaultIcon", "", f'"{exe}",0'),
        RegistryValue(f"{prog}\\shell\\open\\command", "", open_command(exe)),
    ]


def open_with_values() -> list[RegistryValue]:
    """Our ProgID offered in "Open with" of ``.mcpb``/``.dxt``, never taking the default from another app."""
    return [RegistryValue(f"{CLASSES}\\.{ext}\\OpenWithProgids", PROG_ID, "") for ext in BUNDLE_EXTENSIONS]


def registry_values(exe: str) -> list[RegistryValue]:
    """Everything the Windows installer writes: the scheme, the ProgID and the "Open with" entries."""
    return [*scheme_values(exe), *prog_id_values(exe), *open_with_values()]


class RegistryWriter(Protocol):
    """The part of ``HKEY_CURRENT_USER`` the registration reads and writes (string values)."""

    def read(self, subkey: str, name: str) -> str | None:
        """The value's data, or None when the key or value is missing."""

    def write(self, subkey: str, name: str, data: str) -> None:
        """Create the key if needed and set the string value."""


def _program_of(command: str) -> str:
    """The program of a command line (``"C:\\x\\a.exe" "%1"`` or ``/opt/a %u``)."""
    quoted = re.match(r'\s*"([^"]*)"', command)
    if quoted:
        return quoted.group(1)
    return command.split()[0] if command.split() else ""


def program_exists(program: str) -> bool:
    """Whether a command's program is there: an absolute path that exists, or a name found on ``PATH``."""
    return os.path.exists(program) if os.path.isabs(program) else shutil.which(program) is not None


def _claimable(current: str | None, ours: str, exists: Callable[[str], bool]) -> bool:
    """Whether to (re)write an entry whose command is ``current``: missing, or naming a program that is gone."""
    if current is None:
        return True
    return current != ours and not exists(_program_of(current))


def register_windows(exe: str, registry: RegistryWriter, exists: Callable[[str], bool] = program_exists) -> list[str]:
    """Register the scheme and the ``.mcpb`` "Open with" entry for ``exe`` where not already ours; what was written."""
    written: list[str] = []
    for label, values in (("the elftia:// scheme", scheme_values(exe)), (PROG_ID, prog_id_values(exe))):
        command = values[-1]
        if _claimable(registry.read(command.subkey, command.name), command.data, exists):
            for value in values:
                registry.write(value.subkey, value.name, value.data)
            written.append(label)
    for value in open_with_values():
        if registry.read(value.subkey, value.name) is None:
            registry.write(value.subkey, value.name, value.data)
            written.append(value.subkey.rsplit("\\", 2)[1])
    return written


class WindowsRegistry:
    """:class:`RegistryWriter` on the real ``HKEY_CURRENT_USER`` (``winreg``, Windows only)."""

    def read(self, subkey: str, name: str) -> str | None:  # pragma: no cover - Windows only
        """The value's data, or None when the key or value is missing."""
        if sys.platform == "win32":
            import winreg

            try:
                with winreg.OpenKey(winreg.HKEY_CURRENT_USER, subkey) as key:
                    data, _kind = winreg.QueryValueEx(key, name)
            except OSError:
                return None
            return str(data)
        raise OSError("the registry exists only on Windows")

    def write(self, subkey: str, name: str, data: str) -> None:  # pragma: no cover - Windows only
        """Create the key if needed and set the string value."""
        if sys.platform == "win32":
            import winreg

            with winreg.CreateKeyEx(winreg.HKEY_CURRENT_USER, subkey, 0, winreg.KEY_SET_VALUE) as key:
                winreg.SetValueEx(key, name, 0, winreg.REG_SZ, data)
            return
        raise OSError("the registry exists only on Windows")


def _notify_windows_shell() -> None:  # pragma: no cover - Windows only
    """Tell Explorer that file associations changed (``SHChangeNotify(SHCNE_ASSOCCHANGED)``)."""
    assert sys.platform == "win32"
    import ctypes

    ctypes.windll.shell32.SHChangeNotify(0x08000000, 0, None, None)  # type: ignore[attr-defined,unused-ignore]


_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")
"""Characters that make the Desktop Entry spec ask for a quoted argument."""


def _exec_word(exe: str) -> str:
    """``exe`` as the first word of an ``Exec=`` value: quoted and escaped as the Desktop Entry spec asks."""
    if not _RESERVED & set(exe):
        return exe
    quoted = '"' + re.sub(r'(["`$\\])', r"\\\1", exe) + '"'
    return quoted.replace("\\", "\\\\")  # the string type's own escape comes on top: a backslash is \\


def desktop_entry(template: str, exe: str, icon: str) -> str:
    """The ``.desktop`` file of ``resources/`` pointing at the bundle's ``exe`` and ``icon`` (as ``install.sh``)."""
    lines = []
    for line in template.splitlines():
        if line.startswith("Exec="):
            line = f"Exec={_exec_word(exe)} %u"
        elif line.startswith("TryExec="):
            line = "TryExec=" + exe.replace("\\", "\\\\")
        elif line.startswith("Icon="):
            line = "Icon=" + icon.replace("\\", "\\\\")
        lines.append(line)
    return "\n".join(lines) + "\n"


def _exec_program(entry: str) -> str | None:
    """The program of a ``.desktop`` file's ``Exec=`` line (unquoted, unescaped), or None without one."""
    for line in entry.splitlines():
        if line.startswith("Exec="):
            value = line[len("Exec=") :].replace("\\\\", "\\").strip()
            if not value.startswith('"'):
                return value.split()[0] if value else None
            quoted = re.match(r'"((?:[^"\\]|\\.)*)"', value)
            return re.sub(r"\\(.)", r"\1", quoted.group(1)) if quoted else None
    return None


Runner = Callable[[Sequence[str]], str | None]
"""Runs a command and returns its standard output, or None when it could not run or failed."""


def register_linux(
    entry: str, applications: Path, run: Runner, exists: Callable[[str], bool] = program_exists
) -> list[str]:
    """Write ``entry`` as ``applications/elftia-desktop.desktop`` unless one of ours or another live one
    is there, then make it the ``elftia://`` handler if no handler is set; what was done."""
    done: list[str] = []
    path = applications / DESKTOP_FILE
    current = path.read_text(encoding="utf-8") if path.is_file() else None
    current_program = _exec_program(current) if current is not None else None
    if current is None or (current != entry and not (current_program and exists(current_program))):
        applications.mkdir(parents=True, exist_ok=True)
        path.write_text(entry, encoding="utf-8")
        path.chmod(0o644)
        run(["update-desktop-database", "-q", str(applications)])
        done.append(str(path))
    handler = (run(["xdg-mime", "query", "default", SCHEME_MIME]) or "").strip()
    # xdg-mime answers with any entry declaring the type when none is chosen: choose ours once, when written
    if (not handler or (done and handler == DESKTOP_FILE)) and run(
        ["xdg-mime", "default", DESKTOP_FILE, SCHEME_MIME]
    ) is not None:
        done.append(f"{SCHEME_MIME} -> {DESKTOP_FILE}")
    return done


def run_quietly(argv: Sequence[str]) -> str | None:
    """:data:`Runner` on real commands: their output, None when missing, failing or slower than 10 s."""
    try:
        done = subprocess.run(list(argv), capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def register_this_app(exe: str, desktop_template: str, icon: str, system: str = sys.platform) -> list[str]:
    """Register the scheme and the bundle type for the running bundle ``exe`` on this OS (blocking); what was done.

    Errors are logged, never raised: the app works without the registration.
    """
    try:
        if system == "win32":
            written = register_windows(exe, WindowsRegistry())
            if written:
                _notify_windows_shell()
            return written
        if system.startswith("linux"):
            data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
            return register_linux(
                desktop_entry(desktop_template, exe, icon), Path(data_home) / "applications", run_quietly
            )
    except OSError as exc:
        log.warning("The elftia:// links and .mcpb files could not be registered: %s", exc)
    return []
