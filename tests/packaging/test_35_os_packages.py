"""Issue 35: what the macOS and Windows packages declare, and the Linux menu entry, checked on any OS.

The Info.plist is serialised with ``plistlib`` (as PyInstaller writes it) and read back; the Inno
Setup script is parsed line by line; the ``.desktop`` file goes through ``desktop-file-validate``
where desktop-file-utils is installed.
"""

from __future__ import annotations

import importlib.util
import plistlib
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from elftia_desktop.core.install_link import SCHEME
from elftia_desktop.ui.main_window import BUNDLE_SUFFIXES

ROOT = Path(__file__).resolve().parents[2]
DESKTOP_FILE = ROOT / "resources" / "elftia-desktop.desktop"


@pytest.fixture(scope="module")
def os_bundles() -> ModuleType:
    """``packaging/os_bundles.py`` (a file beside the spec, not a package of the app)."""
    spec = importlib.util.spec_from_file_location("os_bundles_under_test", ROOT / "packaging" / "os_bundles.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def test_plist_declares_the_url_scheme_and_mcpb_documents(os_bundles: ModuleType) -> None:
    plist = plistlib.loads(plistlib.dumps(os_bundles.info_plist("1.2.3")))
    assert plist["CFBundleShortVersionString"] == plist["CFBundleVersion"] == "1.2.3"
    schemes = [s for url_type in plist["CFBundleURLTypes"] for s in url_type["CFBundleURLSchemes"]]
    assert schemes == [SCHEME]
    (document,) = plist["CFBundleDocumentTypes"]
    assert {f".{ext}" for ext in document["CFBundleTypeExtensions"]} == set(BUNDLE_SUFFIXES)
    assert document["LSHandlerRank"] == "Alternate"  # in "Open With", not taking the default from Claude
    (declared,) = plist["UTImportedTypeDeclarations"]
    assert document["LSItemContentTypes"] == [declared["UTTypeIdentifier"]]
    assert declared["UTTypeTagSpecification"]["public.filename-extension"] == document["CFBundleTypeExtensions"]
    assert "public.zip-archive" in declared["UTTypeConformsTo"]


def test_registry_values_register_the_scheme_and_offer_mcpb(os_bundles: ModuleType) -> None:
    exe = r"C:\Users\me\AppData\Local\Programs\Elftia Desktop\elftia-desktop.exe"
    values = {(v.subkey, v.name): v.data for v in os_bundles.registry_values(exe)}
    scheme = rf"Software\Classes\{SCHEME}"
    assert values[(scheme, "URL Protocol")] == ""
    assert values[(scheme, "")].startswith("URL:")
    assert values[(rf"{scheme}\shell\open\command", "")] == f'"{exe}" "%1"'
    prog = os_bundles.PROG_ID
    assert values[(rf"Software\Classes\{prog}\shell\open\command", "")] == f'"{exe}" "%1"'
    for suffix in BUNDLE_SUFFIXES:
        assert values[(rf"Software\Classes\{suffix}\OpenWithProgids", prog)] == ""
        assert (rf"Software\Classes\{suffix}", "") not in values  # another app's default is left alone
    assert all(subkey.startswith("Software\\Classes\\") for subkey, _ in values)


def _sections(script: str) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {}
    current = ""
    for line in script.split("\r\n"):
        if re.fullmatch(r"\[\w+\]", line):
            current = line[1:-1]
            sections[current] = []
        elif line and not line.startswith(";"):
            sections.setdefault(current, []).append(line)
    return sections


def test_inno_script_installs_per_user_and_writes_hkcu_only(os_bundles: ModuleType) -> None:
    script = os_bundles.inno_setup_script("1.2.3", r"D:\a\dist\elftia-desktop", r"D:\a\dist")
    sections = _sections(script)
    setup = dict(line.split("=", 1) for line in sections["Setup"])
    assert setup["PrivilegesRequired"] == "lowest"  # no admin prompt
    assert setup["DefaultDirName"].startswith("{localappdata}\\Programs\\")
    assert setup["ChangesAssociations"] == "yes"
    assert setup["AppVersion"] == "1.2.3"
    assert sections["Files"] == [
        r'Source: "D:\a\dist\elftia-desktop\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs'
    ]
    registry = sections["Registry"]
    assert len(registry) == len(os_bundles.registry_values("x"))
    assert all(line.startswith("Root: HKCU; ") for line in registry)
    command = next(line for line in registry if f'Subkey: "Software\\Classes\\{SCHEME}\\shell\\open\\command"' in line)
    assert 'ValueData: """{app}\\elftia-desktop.exe"" ""%1"""' in command  # inner quotes doubled for Inno
    assert "Flags: uninsdeletekey" in next(line for line in registry if f'Classes\\{SCHEME}"; ' in line)


def test_adhoc_signing_signs_then_verifies_the_whole_app(os_bundles: ModuleType) -> None:
    sign, verify = os_bundles.adhoc_sign_commands("dist/Elftia Desktop.app")
    assert sign[:2] == ["codesign", "--force"] and sign[sign.index("--sign") + 1] == "-"
    assert verify[:2] == ["codesign", "--verify"] and "--deep" in verify
    assert sign[-1] == verify[-1] == "dist/Elftia Desktop.app"


def test_desktop_entry_declares_the_scheme_and_bundles() -> None:
    entry = dict(line.split("=", 1) for line in DESKTOP_FILE.read_text(encoding="utf-8").splitlines() if "=" in line)
    assert f"x-scheme-handler/{SCHEME}" in entry["MimeType"].split(";")
    assert entry["Version"] == "1.4"  # desktop-file-utils 0.26 (Debian 12) rejects 1.5


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None, reason="desktop-file-utils is not installed")
def test_desktop_file_validate_is_clean() -> None:
    result = subprocess.run(
        ["desktop-file-validate", str(DESKTOP_FILE)], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0 and not result.stdout.strip(), result.stdout + result.stderr
