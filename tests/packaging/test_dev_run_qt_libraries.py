"""``dev.py run`` on a machine without Qt's X11 libraries: it names the exact missing libraries (from ``ldd`` of
the xcb plugin) and their Debian packages instead of starting the app into Qt's own hint."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

import PySide6
import pytest

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = Path(PySide6.__file__).parent / "Qt" / "plugins" / "platforms" / "libqxcb.so"
pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not shutil.which("ldd") or not PLUGIN.exists(), reason="Linux, ldd"
)


def load_dev() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dev_under_test", ROOT / "dev.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("library", "package"),
    [
        ("libxcb-icccm.so.4", "libxcb-icccm4"),
        ("libxcb-keysyms.so.1", "libxcb-keysyms1"),
        ("libxcb-cursor.so.0", "libxcb-cursor0"),
        ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),
        ("libxcb-render-util.so.0", "libxcb-render-util0"),
        ("libdbus-1.so.3", "libdbus-1-3"),
        ("libglib-2.0.so.0", "libglib2.0-0"),
        ("libEGL.so.1", "libegl1"),
    ],
)
def test_library_names_map_to_debian_packages(library: str, package: str) -> None:
    assert load_dev().debian_package(library) == package
    assert package in load_dev().QT_RUNTIME_PACKAGES


def test_run_names_what_ldd_cannot_find(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    dev = load_dev()
    platforms = tmp_path / ".venv" / "lib" / "python3.11" / "site-packages" / "PySide6" / "Qt" / "plugins" / "platforms"
    platforms.mkdir(parents=True)
    shutil.copy(PLUGIN, platforms)  # away from Qt's own libraries: ldd cannot find them
    launched: list[tuple[object, ...]] = []
    monkeypatch.setattr(dev, "VENV", tmp_path / ".venv")
    monkeypatch.setattr(dev, "ensure_venv", lambda *extras: None)
    monkeypatch.setattr(dev, "ensure_system_packages", lambda *extra: None)
    monkeypatch.setattr(dev, "run", lambda *command, env=None: launched.append(command) or 0)
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert "libQt6XcbQpa.so.6" in dev.missing_qt_libraries()
    assert dev.cmd_run([]) == 1
    err = capsys.readouterr().err
    assert "libQt6XcbQpa.so.6" in err and "sudo apt-get install libqt6xcbqpa6" in err
    assert not launched, "the app is not started into Qt's own error"
