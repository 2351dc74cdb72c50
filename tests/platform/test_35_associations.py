"""Issue 35: the ``elftia://`` scheme and ``.mcpb`` registered by the app's own first start.

Windows: the values written to a fake ``HKEY_CURRENT_USER`` (the :class:`RegistryWriter` protocol),
and what is left alone (already ours, another app's default, another live program). Linux: the
``.desktop`` file in a temporary ``applications`` folder, and the real ``xdg-mime`` in a temporary
XDG home when it is installed. ``sys.platform`` is never patched.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from elftia_desktop.platform.associations import (
    CLASSES,
    DESKTOP_FILE,
    PROG_ID,
    SCHEME_MIME,
    desktop_entry,
    program_exists,
    register_linux,
    register_this_app,
    register_windows,
    registry_values,
    run_quietly,
)

EXE = r"C:\Users\ada\Downloads\elftia-desktop\elftia-desktop.exe"
TEMPLATE = (Path(__file__).resolve().parents[2] / "resources" / DESKTOP_FILE).read_text(encoding="utf-8")
SCHEME_COMMAND = (f"{CLASSES}\\elftia\\shell\\open\\command", "")


class FakeRegistry:
    """``HKEY_CURRENT_USER`` as a dict of (subkey, value name) -> data, with the writes recorded."""

    def __init__(self, values: dict[tuple[str, str], str] | None = None) -> None:
        self.values = dict(values or {})
        self.writes: list[tuple[str, str, str]] = []

    def read(self, subkey: str, name: str) -> str | None:
        """The stored data or None."""
        return self.values.get((subkey, name))

    def write(self, subkey: str, name: str, data: str) -> None:
        """Store and record."""
        self.values[(subkey, name)] = data
        self.writes.append((subkey, name, data))


def _exists(*paths: str) -> Callable[[str], bool]:
    """An ``exists`` check that knows only ``paths``."""
    return lambda path: path in paths


def test_a_fresh_registry_gets_the_installers_values() -> None:
    registry = FakeRegistry()
    done = register_windows(EXE, registry, exists=_exists())
    assert done == ["the elftia:// scheme", PROG_ID, ".mcpb", ".dxt"]
    assert registry.values == {(v.subkey, v.name): v.data for v in registry_values(EXE)}
    assert registry.values[SCHEME_COMMAND] == f'"{EXE}" "%1"'
    assert registry.values[(f"{CLASSES}\\elftia", "URL Protocol")] == ""
    assert registry.values[(f"{CLASSES}\\.mcpb\\OpenWithProgids", PROG_ID)] == ""
    assert (f"{CLASSES}\\.mcpb", "") not in registry.values  # the extension's default is never set


def test_already_ours_writes_nothing() -> None:
    registry = FakeRegistry()
    register_windows(EXE, registry, exists=_exists())
    registry.writes.clear()
    assert register_windows(EXE, registry, exists=_exists(EXE)) == []
    assert registry.writes == []


def test_another_apps_mcpb_default_is_kept_and_ours_only_offered() -> None:
    claude = (f"{CLASSES}\\.mcpb", "")
    registry = FakeRegistry({claude: "Claude.mcpb", (f"{CLASSES}\\.mcpb\\OpenWithProgids", "Claude.mcpb"): ""})
    register_windows(EXE, registry, exists=_exists())
    assert registry.values[claude] == "Claude.mcpb"
    assert all(subkey != f"{CLASSES}\\.mcpb" for subkey, _name, _data in registry.writes)
    assert registry.values[(f"{CLASSES}\\.mcpb\\OpenWithProgids", "Claude.mcpb")] == ""
    assert registry.values[(f"{CLASSES}\\.mcpb\\OpenWithProgids", PROG_ID)] == ""


def test_a_scheme_of_another_live_program_is_left_and_a_stale_one_replaced() -> None:
    installed = r"C:\Users\ada\AppData\Local\Programs\Elftia Desktop\elftia-desktop.exe"
    registry = FakeRegistry({SCHEME_COMMAND: f'"{installed}" "%1"'})
    assert register_windows(EXE, registry, exists=_exists(installed))[0] == PROG_ID
    assert registry.values[SCHEME_COMMAND] == f'"{installed}" "%1"'
    assert not any(subkey.startswith(f"{CLASSES}\\elftia") for subkey, _n, _d in registry.writes)

    moved = FakeRegistry({SCHEME_COMMAND: f'"{installed}" "%1"'})  # that install was removed
    assert register_windows(EXE, moved, exists=_exists())[0] == "the elftia:// scheme"
    assert moved.values[SCHEME_COMMAND] == f'"{EXE}" "%1"'


def test_desktop_entry_points_at_the_bundle() -> None:
    entry = desktop_entry(TEMPLATE, "/opt/elftia/elftia-desktop", "/opt/elftia/icon.png")
    lines = entry.splitlines()
    assert "Exec=/opt/elftia/elftia-desktop %u" in lines
    assert "TryExec=/opt/elftia/elftia-desktop" in lines and "Icon=/opt/elftia/icon.png" in lines
    assert "MimeType=x-scheme-handler/elftia;application/x-mcpb;" in lines
    spaced = desktop_entry(TEMPLATE, "/home/ada/My Apps/elftia-desktop", "/i.png")
    assert 'Exec="/home/ada/My Apps/elftia-desktop" %u' in spaced.splitlines()
    dollar = desktop_entry(TEMPLATE, "/home/ada/My $Apps/elftia-desktop", "/i.png")
    assert 'Exec="/home/ada/My \\\\$Apps/elftia-desktop" %u' in dollar.splitlines()  # \$ in quotes, \ doubled


@pytest.mark.parametrize("exe", ["/opt/e/elftia-desktop", "/home/ada/My Apps/e", "/home/ada/My $Apps/e", '/a "b"/e'])
def test_an_entry_written_for_a_program_is_read_back_as_that_program(tmp_path: Path, exe: str) -> None:
    applications = tmp_path / "applications"
    register_linux(desktop_entry(TEMPLATE, exe, "/i.png"), applications, FakeXdg("x.desktop"), exists=_exists())
    other = desktop_entry(TEMPLATE, "/elsewhere/elftia-desktop", "/i.png")  # another copy starts: ours is live
    assert register_linux(other, applications, FakeXdg("x.desktop"), exists=_exists(exe)) == []


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None, reason="desktop-file-utils is not installed")
def test_the_written_desktop_file_is_valid(tmp_path: Path) -> None:
    path = tmp_path / DESKTOP_FILE
    path.write_text(desktop_entry(TEMPLATE, "/home/ada/My $Apps/elftia-desktop", "/home/ada/icon.png"))
    done = subprocess.run(["desktop-file-validate", str(path)], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and done.stdout == "", done.stdout


class FakeXdg:
    """The commands run, with ``xdg-mime query`` answering ``handler``."""

    def __init__(self, handler: str = "") -> None:
        self.handler = handler
        self.commands: list[list[str]] = []

    def __call__(self, argv: Sequence[str]) -> str | None:
        self.commands.append(list(argv))
        return self.handler + "\n" if argv[:2] == ["xdg-mime", "query"] else ""


def test_linux_first_start_writes_the_entry_and_the_handler(tmp_path: Path) -> None:
    applications, entry = tmp_path / "applications", desktop_entry(TEMPLATE, "/opt/e/elftia-desktop", "/opt/e/i.png")
    xdg = FakeXdg()
    done = register_linux(entry, applications, xdg, exists=_exists())
    assert (applications / DESKTOP_FILE).read_text() == entry
    assert done == [str(applications / DESKTOP_FILE), f"{SCHEME_MIME} -> {DESKTOP_FILE}"]
    assert ["xdg-mime", "default", DESKTOP_FILE, SCHEME_MIME] in xdg.commands

    again = FakeXdg(DESKTOP_FILE)  # the next start: ours already, the handler set
    assert register_linux(entry, applications, again, exists=_exists("/opt/e/elftia-desktop")) == []
    assert again.commands == [["xdg-mime", "query", "default", SCHEME_MIME]]


def test_linux_leaves_another_live_entry_and_handler(tmp_path: Path) -> None:
    applications = tmp_path / "applications"
    applications.mkdir()
    installed = desktop_entry(TEMPLATE, "/home/ada/.local/opt/elftia/elftia-desktop", "elftia-desktop")
    (applications / DESKTOP_FILE).write_text(installed)  # install.sh's entry for another copy
    xdg = FakeXdg("org.other.App.desktop")
    ours = desktop_entry(TEMPLATE, "/tmp/e/elftia-desktop", "/tmp/e/i.png")
    assert register_linux(ours, applications, xdg, exists=_exists("/home/ada/.local/opt/elftia/elftia-desktop")) == []
    assert (applications / DESKTOP_FILE).read_text() == installed
    assert not any(c[:2] == ["xdg-mime", "default"] for c in xdg.commands)

    assert register_linux(ours, applications, FakeXdg("x.desktop"), exists=_exists())  # that copy is gone
    assert (applications / DESKTOP_FILE).read_text() == ours


@pytest.mark.skipif(shutil.which("xdg-mime") is None, reason="xdg-utils is not installed")
def test_real_xdg_mime_makes_us_the_handler(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_DIRS", str(tmp_path / "none"))
    monkeypatch.setenv("XDG_CONFIG_DIRS", str(tmp_path / "none"))
    for variable in ("XDG_CURRENT_DESKTOP", "DESKTOP_SESSION", "KDE_FULL_SESSION", "GNOME_DESKTOP_SESSION_ID"):
        monkeypatch.delenv(variable, raising=False)
    exe = tmp_path / "bundle" / "elftia-desktop"
    exe.parent.mkdir()
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    done = register_this_app(str(exe), TEMPLATE, str(tmp_path / "i.png"), system="linux")
    assert done[-1] == f"{SCHEME_MIME} -> {DESKTOP_FILE}"
    assert (tmp_path / "data" / "applications" / DESKTOP_FILE).is_file()
    assert (run_quietly(["xdg-mime", "query", "default", SCHEME_MIME]) or "").strip() == DESKTOP_FILE
    assert register_this_app(str(exe), TEMPLATE, str(tmp_path / "i.png"), system="linux") == []
    assert f"{SCHEME_MIME}={DESKTOP_FILE}" in (tmp_path / "config" / "mimeapps.list").read_text()


def test_a_program_is_there_by_absolute_path_or_on_path(tmp_path: Path) -> None:
    assert program_exists(shutil.which("sh") or "/bin/sh") and program_exists("sh")
    assert not program_exists(str(tmp_path / "gone" / "elftia-desktop.exe"))
    assert not program_exists("elftia-no-such-program")
