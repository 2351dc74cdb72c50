"""What the bundle leaves out of what PyInstaller collects (the spec filters its Analysis with these).

PyInstaller's PySide6 hooks collect every plugin of the Qt modules the app imports, every Qt
translation, and every library those plugins link. The app loads none of the ones named here; each
has its reason. ``trim_binaries`` drops the plugins and the libraries only they link (libgtk-3 and
its 20 companions come in only through the GTK platform theme), keeping any library something kept
still links. Without the GTK theme, Qt's built-in GNOME theme still reads the desktop's light or dark
setting (through the settings portal), which the app's "Follow the system" theme uses.
"""

from __future__ import annotations

import os.path
from collections.abc import Callable, Iterable
from typing import TypeVar

E = TypeVar("E", bound=tuple[str, ...])

# Qt plugins (under PySide6/Qt/plugins/) the app never loads, each with why.
QT_PLUGINS_UNUSED: dict[str, str] = {
    "platformthemes/libqgtk3.so": "GTK palette, dialogs: the app has its own theme; brings libgtk-3 + 20 libs",
    "platforminputcontexts/libqtvirtualkeyboardplugin.so": "an on-screen keyboard for kiosks (QtVirtualKeyboard, QML)",
    "imageformats/libqpdf.so": "PDF pages as images: the app shows none (it alone links libQt6Pdf, 4.5 MB)",
    "platforms/libqeglfs.so": "full-screen EGL without a window system (embedded devices)",
    "platforms/libqminimalegl.so": "EGL variant of the minimal platform (embedded testing)",
    "platforms/libqlinuxfb.so": "the Linux framebuffer without a window system",
    "platforms/libqvnc.so": "serving the window over VNC",
    "platforms/libqvkkhrdisplay.so": "Vulkan straight to a display, no window system",
    "egldeviceintegrations/": "the backends of eglfs, which is out",
    "generic/": "raw evdev/TUIO input, read only by eglfs and linuxfb",
}  # fmt: skip

# Chromium's developer tools: the Apps view opens none (about 10 MB).
WEBENGINE_UNUSED = ("qtwebengine_devtools_resources.pak",)


def plugin_unused(dest: str) -> bool:
    """Whether ``dest`` (a path inside the bundle) is a Qt plugin of ``QT_PLUGINS_UNUSED``."""
    dest = dest.replace("\\", "/")
    return any(f"/Qt/plugins/{name}" in dest for name in QT_PLUGINS_UNUSED)


def data_kept(dest: str) -> bool:
    """Whether a data file stays in the bundle.

    Out: Qt's ``.qm`` translations (the app installs no QTranslator: its UI is English), Chromium's
    locales but en-US (the page's strings; Chromium falls back to en-US) and its devtools pak.
    """
    dest = dest.replace("\\", "/")
    if "/qtwebengine_locales/" in dest:
        return dest.endswith("/en-US.pak")
    if "/Qt/translations/" in dest and dest.endswith(".qm"):
        return False
    return not dest.endswith(WEBENGINE_UNUSED)


def trim_binaries(binaries: Iterable[E], imports: Callable[[str], Iterable[str]]) -> list[E]:
    """``binaries`` (PyInstaller's ``(dest, source, kind)``) without the unused plugins and what only they link.

    ``imports(source)`` names the libraries (real paths) a binary links. A library that a dropped
    plugin links leaves too unless a binary that stays links it.
    """
    entries = list(binaries)
    by_path = {_real(e[1]): e for e in entries}
    links = {_real(e[1]): {_real(p) for p in imports(e[1])} & by_path.keys() for e in entries}
    dropped = {_real(e[1]) for e in entries if plugin_unused(e[0])}
    leaving = _reach(dropped, links)
    changed = True
    while changed:  # a library leaves only when nothing that stays links it
        staying = by_path.keys() - leaving
        needed = set().union(*(links[p] for p in staying)) & (leaving - dropped)
        leaving -= needed
        changed = bool(needed)
    return [e for e in entries if _real(e[1]) not in leaving]


def _reach(start: set[str], links: dict[str, set[str]]) -> set[str]:
    seen: set[str] = set()
    todo = list(start)
    while todo:
        path = todo.pop()
        if path not in seen:
            seen.add(path)
            todo.extend(links.get(path, ()))
    return seen


def _real(path: str) -> str:
    return os.path.realpath(path)
