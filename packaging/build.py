"""Build the one-folder app with PyInstaller, then pack it: ``python3 dev.py package`` runs this.

    .venv/bin/python packaging/build.py [--smoke]

Produces ``dist/elftia-desktop/`` (``elftia-desktop``, ``elftia-mcp`` and the ``_internal`` folder
they share), then the native package of this OS:

* Linux: ``install.sh``/``uninstall.sh`` in the folder and ``dist/elftia-desktop-<version>-linux-<machine>.tar.gz``.
* macOS: ``dist/Elftia Desktop.app`` (Info.plist from ``os_bundles.py``), ad-hoc signed and verified
  with ``codesign``, zipped with ``ditto`` as ``dist/elftia-desktop-<version>-macos-<machine>.zip``.
* Windows: ``dist/elftia-desktop.iss``, the per-user Inno Setup script (URL scheme and ``.mcpb``
  under HKCU), compiled to ``dist/elftia-desktop-<version>-windows-setup.exe`` when Inno Setup 6 is installed.

Prints the folder's size. ``--smoke`` runs ``packaging/smoke.py`` on the folder (on a headless
Linux machine under ``xvfb-run``, so the window runs on the xcb platform and ``xdg-open`` can hand
it a link).
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from os_bundles import APP_NAME, adhoc_sign_commands, inno_setup_script  # noqa: E402  (packaging/ is sys.path[0])

from elftia_desktop import __version__  # noqa: E402

SPEC = ROOT / "packaging" / "elftia-desktop.spec"
DIST = ROOT / "dist"
WORK = ROOT / "build" / "pyinstaller"
BUNDLE = DIST / "elftia-desktop"


def folder_size(folder: Path) -> int:
    """Bytes on disk of every file under ``folder`` (symlinks not followed)."""
    return sum(p.lstat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def write_windows_version_info() -> None:
    """The version resource of the Windows executables (written, untested)."""
    numbers = [*(int(n) for n in __version__.split(".")[:3]), 0]
    text = f"""VSVersionInfo(
  ffi=FixedFileInfo(filevers={tuple(numbers)}, prodvers={tuple(numbers)}),
  kids=[StringFileInfo([StringTable('040904B0', [
    StringStruct('CompanyName', 'Elftia'), StringStruct('FileDescription', 'Elftia Desktop'),
    StringStruct('FileVersion', '{__version__}'), StringStruct('ProductName', 'Elftia Desktop'),
    StringStruct('ProductVersion', '{__version__}')])]), VarFileInfo([VarStruct('Translation', [1033, 1200])])]
)
"""
    target = ROOT / "build" / "windows-version-info.txt"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def run_pyinstaller() -> None:
    """Run PyInstaller on the spec into ``dist/``; exits when it fails."""
    if sys.platform == "win32":
        write_windows_version_info()
    command = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN"]
    command += ["--distpath", str(DIST), "--workpath", str(WORK), str(SPEC)]
    if subprocess.call(command, cwd=ROOT) != 0:
        sys.exit("PyInstaller failed (see its output above)")


def add_linux_extras() -> None:
    """Put the install and uninstall scripts next to the executables."""
    for name in ("install.sh", "uninstall.sh"):
        target = BUNDLE / name
        shutil.copy2(ROOT / "packaging" / "linux" / name, target)
        target.chmod(0o755)


def make_tarball() -> Path:
    """``dist/elftia-desktop-<version>-linux-<machine>.tar.gz`` of the folder."""
    archive = DIST / f"elftia-desktop-{__version__}-linux-{platform.machine()}.tar.gz"
    with tarfile.open(archive, "w:gz", compresslevel=6) as tar:
        tar.add(BUNDLE, arcname=BUNDLE.name)
    return archive


def package_macos() -> Path:
    """Ad-hoc sign ``Elftia Desktop.app``, verify the signature, zip it; exits when ``codesign`` fails."""
    app = DIST / f"{APP_NAME}.app"
    for command in adhoc_sign_commands(str(app)):
        if subprocess.call(command) != 0:
            sys.exit(f"{' '.join(command[:2])} failed on {app}")
    archive = DIST / f"elftia-desktop-{__version__}-macos-{platform.machine()}.zip"
    if subprocess.call(["ditto", "-c", "-k", "--keepParent", str(app), str(archive)]) != 0:
        sys.exit(f"ditto could not zip {app}")
    return archive


def package_windows() -> Path:
    """Write the Inno Setup script; compile it to the installer when ``iscc`` is installed."""
    script = DIST / "elftia-desktop.iss"
    script.write_text(inno_setup_script(__version__, str(BUNDLE), str(DIST)), encoding="utf-8")
    default = Path(os.environ.get("PROGRAMFILES(X86)", r"C:\Program Files (x86)")) / "Inno Setup 6" / "ISCC.exe"
    iscc = shutil.which("iscc") or (str(default) if default.is_file() else None)
    if iscc is None:
        print(f"Wrote {script.relative_to(ROOT)}; install Inno Setup 6 and run 'iscc {script.name}' for the installer")
        return script
    if subprocess.call([iscc, "/Q", str(script)]) != 0:
        sys.exit("iscc failed (see its output above)")
    return DIST / f"elftia-desktop-{__version__}-windows-setup.exe"


def main(argv: list[str]) -> int:
    """Build, pack, report; with ``--smoke`` also run the smoke test."""
    started = time.monotonic()
    run_pyinstaller()
    print(f"\nBuilt {BUNDLE.relative_to(ROOT)} in {time.monotonic() - started:.0f} s")
    if sys.platform.startswith("linux"):
        add_linux_extras()
        archive = make_tarball()
        print(f"Packed {archive.relative_to(ROOT)} ({archive.stat().st_size / 1e6:.0f} MB)")
    elif sys.platform == "darwin":
        print(f"Signed and packed {package_macos().relative_to(ROOT)}")
    elif sys.platform == "win32":
        print(f"Packed {package_windows().relative_to(ROOT)}")
    print(f"Bundle size on disk: {folder_size(BUNDLE) / 1e6:.0f} MB")
    if "--smoke" in argv:
        return subprocess.call(smoke_command(), cwd=ROOT)
    return 0


def smoke_command() -> list[str]:
    """``packaging/smoke.py`` on the bundle; headless Linux: under Xvfb on the real xcb platform."""
    command = [sys.executable, str(ROOT / "packaging" / "smoke.py"), str(BUNDLE)]
    headless = sys.platform.startswith("linux") and not os.environ.get("DISPLAY")
    if headless and shutil.which("xvfb-run"):
        return ["xvfb-run", "--auto-servernum", "env", "QT_QPA_PLATFORM=xcb", *command]
    return command


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
