"""Issue 34: what the bundle leaves out (``packaging/bundle_trim.py``, applied by the spec).

The dependency pruning runs on a small graph and, on Linux, on the installed PySide6's real GTK and
xcb plugins with the libraries ``ldd`` resolves for them.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def trim() -> ModuleType:
    """``packaging/bundle_trim.py`` (a file beside the spec, not a package of the app)."""
    spec = importlib.util.spec_from_file_location("bundle_trim_under_test", ROOT / "packaging" / "bundle_trim.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _entry(dest: str) -> tuple[str, str, str]:
    return (dest, f"/src/{dest}", "BINARY")


def test_a_dropped_plugin_takes_the_libraries_only_it_links(trim: ModuleType) -> None:
    gtk_theme = _entry("PySide6/Qt/plugins/platformthemes/libqgtk3.so")
    xcb = _entry("PySide6/Qt/plugins/platforms/libqxcb.so")
    gtk, gdk, x11, cairo = (_entry(n) for n in ("libgtk-3.so.0", "libgdk-3.so.0", "libX11.so.6", "libcairo.so.2"))
    regex = _entry("regex/_regex.so")
    links = {
        gtk_theme[1]: [gtk[1], gdk[1], x11[1]],
        gtk[1]: [gdk[1], cairo[1], x11[1]],
        gdk[1]: [gtk[1], x11[1]],  # a cycle among the leaving ones
        xcb[1]: [x11[1]],
        regex[1]: [cairo[1]],  # kept: something that stays links it
    }
    entries = [gtk_theme, xcb, gtk, gdk, x11, cairo, regex]
    kept = trim.trim_binaries(entries, lambda source: links.get(source, []))
    assert kept == [xcb, x11, cairo, regex]


def test_every_plugin_named_exists_in_the_installed_qt(trim: ModuleType) -> None:
    """An exclusion that matches nothing (a plugin renamed by a Qt update) would change nothing."""
    plugins = Path(pytest.importorskip("PySide6").__file__).parent / "Qt" / "plugins"
    if not plugins.is_dir():
        pytest.skip("this PySide6 keeps its plugins elsewhere (macOS frameworks, Windows layout)")
    for name in trim.QT_PLUGINS_UNUSED:
        assert list(plugins.glob(f"{name}*")), f"{name} is not under {plugins}"


def test_translations_and_chromium_locales_but_english_leave(trim: ModuleType) -> None:
    qt = "PySide6/Qt"
    assert not trim.data_kept(f"{qt}/translations/qt_de.qm")
    assert not trim.data_kept(f"{qt}/translations/qtwebengine_en.qm")
    assert not trim.data_kept(f"{qt}/translations/qtwebengine_locales/de.pak")
    assert trim.data_kept(f"{qt}/translations/qtwebengine_locales/en-US.pak")
    assert not trim.data_kept(f"{qt}/resources/qtwebengine_devtools_resources.pak")
    assert trim.data_kept(f"{qt}/resources/qtwebengine_resources.pak")
    assert trim.data_kept("elftia_desktop/resources/icons/elftia-desktop-512.png")


def _ldd(path: str) -> list[str]:
    out = subprocess.run(["ldd", path], capture_output=True, text=True, check=False).stdout
    return re.findall(r"=> (/\S+)", out)


@pytest.mark.skipif(not sys.platform.startswith("linux") or not shutil.which("ldd"), reason="ldd, Linux")
def test_the_real_gtk_theme_plugin_leaves_with_libgtk_and_xcb_keeps_libx11(trim: ModuleType) -> None:
    plugins = Path(pytest.importorskip("PySide6").__file__).parent / "Qt" / "plugins"
    gtk_theme, xcb = plugins / "platformthemes" / "libqgtk3.so", plugins / "platforms" / "libqxcb.so"
    libraries = sorted({*_ldd(str(gtk_theme)), *_ldd(str(xcb))})
    if not any("libgtk-3" in p for p in libraries):
        pytest.skip("libgtk-3 is not installed here")
    entries = [(f"PySide6/Qt/plugins/{p.parent.name}/{p.name}", str(p), "BINARY") for p in (gtk_theme, xcb)]
    entries += [(Path(p).name, p, "BINARY") for p in libraries]
    kept = {e[0] for e in trim.trim_binaries(entries, _ldd)}
    assert "PySide6/Qt/plugins/platforms/libqxcb.so" in kept
    assert "PySide6/Qt/plugins/platformthemes/libqgtk3.so" not in kept
    assert "libgtk-3.so.0" not in kept and "libgdk-3.so.0" not in kept
    assert "libX11.so.6" in kept and "libQt6Gui.so.6" in kept
