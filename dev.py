#!/usr/bin/env python3
"""Set up and run Elftia Desktop from a source checkout, with nothing but Python 3.11+.

    python3 dev.py run     create .venv if needed, install the app, launch it
    python3 dev.py test    create .venv if needed, install the app, the test tools and the apps extra
                           (QtWebEngine, for the MCP Apps view's tests), then run
                           ruff, mypy, import-linter and the pytest suite on a worker per core and one more,
                           without the tests that install from the network; extra arguments go
                           to pytest (``-m network`` runs just those, ``-n 0`` one process)
    python3 dev.py package build the double-clickable app (with QtWebEngine) with PyInstaller into dist/elftia-desktop/
                           and this OS's package (Linux: a tar.gz; macOS: the signed .app, zipped;
                           Windows: the Inno Setup script, and its installer when iscc is installed);
                           add --smoke to run the bundle's smoke test after the build

A venv set up for more (``test`` or ``package`` extras) serves ``run`` as it is; pip runs again
only when pyproject.toml changed or an extra is missing.

On a Debian/Ubuntu machine run as root, ``run`` first installs the Qt runtime libraries and fonts
the window needs, and ``test`` those plus Xvfb and gnome-keyring for the GUI and keyring tests, when
missing. Elsewhere (not root, or not Debian-like), ``run`` checks Qt's X11 platform plugin with ``ldd``
and names the exact libraries it cannot find (and their Debian/Ubuntu packages) instead of starting.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")

QT_RUNTIME_PACKAGES = [
    "libglib2.0-0", "libegl1", "libgl1", "libx11-6", "libdbus-1-3", "libfontconfig1", "libfreetype6",
    "libxkbcommon0", "fonts-dejavu-core", "fonts-noto-color-emoji",
    "libxcb-cursor0", "libxcb-icccm4", "libxcb-keysyms1", "libxcb-image0", "libxcb-render-util0",
    "libxcb-shape0", "libxcb-xkb1", "libxkbcommon-x11-0",
]  # fmt: skip
"""What the window needs (``run`` and ``test``)."""
TEST_PACKAGES = ["xvfb", "xauth", "gnome-keyring", "dbus-daemon", "bubblewrap"]
"""What the GUI, keyring and sandbox tests need besides (``test``)."""
PACKAGE_OF_LIBRARY = {"libglib-2.0.so.0": "libglib2.0-0", "libGL.so.1": "libgl1", "libEGL.so.1": "libegl1"}
"""Debian packages whose names do not follow from the library's (``libxcb-icccm.so.4`` → ``libxcb-icccm4``)."""


def worker_count() -> int:
    """A pytest worker per core this process may run on, and one more.

    Many tests wait on the processes they start (servers, gateways, the pool host), so a worker per
    core leaves the cores idle part of the time: on 2 cores, tests/connections and tests/cli took
    157 s on 3 workers against 178-192 s on 2 (the same sitting, twice each).
    """
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return cores + 1


PYTEST_ARGS = [f"--numprocesses={worker_count()}", "--dist=worksteal", "-m", "not network", "--durations=15"]
"""A worker per core and one more; installs from the network left to ``-m network`` (.ci/run); the slowest shown."""


def step(title: str) -> None:
    print(f"\n==> {title}", flush=True)


def run(*command: str | Path, env: dict[str, str] | None = None) -> int:
    return subprocess.call([str(c) for c in command], cwd=ROOT, env=env)


def ensure_venv(*extras: str) -> None:
    """Create .venv; install the project with ``extras`` when pyproject.toml changed or an extra is missing.

    The stamp records the pyproject digest and every extra installed so far, so a venv set up by
    ``test`` serves ``run`` without pip, and ``package`` after ``test`` installs the union once.
    """
    if sys.version_info < (3, 11):  # noqa: UP036 - dev.py runs on whatever python3 the user has
        sys.exit(f"Python 3.11 or newer is needed; this is {sys.version.split()[0]}")
    if not PYTHON.exists():
        step("Creating .venv")
        venv.EnvBuilder(with_pip=True).create(VENV)
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    stamp = VENV / ".installed"
    installed: set[str] = set()
    try:
        recorded = json.loads(stamp.read_text())
        if recorded.get("pyproject") == digest:
            installed = set(recorded.get("extras", []))
            if set(extras) <= installed:
                return
    except (OSError, ValueError, AttributeError):
        pass  # no stamp, or one written by an older dev.py: install
    wanted = sorted(installed | set(extras))
    spec = f".[{','.join(wanted)}]" if wanted else "."
    step(f"Installing elftia-desktop{spec[1:]} into .venv")
    if run(PYTHON, "-m", "pip", "install", "--quiet", "--upgrade", "pip") != 0:
        sys.exit("pip could not be upgraded")
    if run(PYTHON, "-m", "pip", "install", "--quiet", "-e", spec) != 0:
        sys.exit("installing the project failed (see pip's output above)")
    stamp.write_text(json.dumps({"pyproject": digest, "extras": wanted}))


def ensure_system_packages(*extra: str) -> None:
    """Install missing Qt runtime libraries (and ``extra``) on Debian-like systems, as root."""
    if not sys.platform.startswith("linux") or not shutil.which("dpkg-query") or not shutil.which("apt-get"):
        return
    missing = [p for p in [*QT_RUNTIME_PACKAGES, *extra] if not _dpkg_installed(p)]
    if not missing:
        return
    if os.geteuid() != 0:
        print(f"Note: missing system packages (as root: apt-get install {' '.join(missing)})")
        return
    step(f"Installing system packages: {' '.join(missing)}")
    env = os.environ | {"DEBIAN_FRONTEND": "noninteractive"}
    run("apt-get", "update", "-qq", env=env)
    if run("apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing, env=env) != 0:
        sys.exit("apt-get could not install the Qt runtime packages")


def _dpkg_installed(package: str) -> bool:
    result = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True, check=False)
    return result.stdout.strip() == "install ok installed"


def missing_qt_libraries() -> list[str]:
    """Libraries Qt's X11 (xcb) platform plugin links to that ``ldd`` cannot find (Linux; else none)."""
    if not sys.platform.startswith("linux") or not shutil.which("ldd"):
        return []
    plugins = list(VENV.glob("lib/python3*/site-packages/PySide6/Qt/plugins/platforms/libqxcb.so"))
    if not plugins:
        return []
    result = subprocess.run(["ldd", str(plugins[0])], capture_output=True, text=True, check=False)
    found = [line.split("=>")[0].strip() for line in result.stdout.splitlines() if "not found" in line]
    return list(dict.fromkeys(found))


def debian_package(library: str) -> str:
    """The Debian/Ubuntu package that ships ``library`` (``libxcb-icccm.so.4`` → ``libxcb-icccm4``)."""
    if library in PACKAGE_OF_LIBRARY:
        return PACKAGE_OF_LIBRARY[library]
    base, _, version = library.partition(".so.")
    version = version.split(".")[0]
    return (f"{base}-{version}" if base[-1:].isdigit() else f"{base}{version}").lower()


def cmd_run(args: list[str]) -> int:
    ensure_system_packages()
    ensure_venv()
    default = "wayland" if os.environ.get("WAYLAND_DISPLAY") else "xcb"
    missing = missing_qt_libraries() if os.environ.get("QT_QPA_PLATFORM", default).startswith("xcb") else []
    if missing:
        packages = " ".join(dict.fromkeys(debian_package(m) for m in missing))
        print(
            f"Qt's X11 platform plugin cannot load: these libraries are missing: {', '.join(missing)}.\n"
            f"On Debian/Ubuntu install them with: sudo apt-get install {packages}\n"
            "(or run python3 dev.py run as root once, which installs them)",
            file=sys.stderr,
        )
        return 1
    return run(BIN / "elftia-desktop", *args)


def cmd_test(args: list[str]) -> int:
    ensure_system_packages(*TEST_PACKAGES)
    ensure_venv("test", "apps")  # the MCP Apps view's tests need QtWebEngine
    env = os.environ | {"QT_QPA_PLATFORM": "offscreen"}
    checks = [
        ("ruff", [BIN / "ruff", "check", "."]),
        ("ruff format", [BIN / "ruff", "format", "--check", "."]),
        ("mypy", [BIN / "mypy"]),
        ("import-linter", [BIN / "lint-imports"]),
    ]
    failed = []
    for name, command in checks:
        step(name)
        if run(*command, env=env) != 0:
            failed.append(name)
    step("pytest")
    if run(PYTHON, "-m", "pytest", *PYTEST_ARGS, *args, env=env) != 0:
        failed.append("pytest")
    if failed:
        print(f"\nFAILED: {', '.join(failed)}")
        return 1
    print("\nAll checks passed.")
    return 0


def cmd_package(args: list[str]) -> int:
    ensure_system_packages("binutils", "xdg-utils")  # PyInstaller uses objdump; the smoke test xdg-open
    ensure_venv("package", "apps")  # the bundle includes QtWebEngine for the MCP Apps view
    env = os.environ | {"QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    return run(PYTHON, ROOT / "packaging" / "build.py", *args, env=env)


def main() -> int:
    commands = {"run": cmd_run, "test": cmd_test, "package": cmd_package}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        print(__doc__)
        return 2
    return commands[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
