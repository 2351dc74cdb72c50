"""Issue 35: who besides the user may change (or read) the data folder and the secrets file, per OS.

Windows ACLs are given as the SDDL ``GetNamedSecurityInfoW`` returns for real folders (the reader is
passed in; ``sys.platform`` is never patched). POSIX modes are checked on real files.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from pathlib import Path

import pytest
from keyring.backends.fail import Keyring as NoKeyring

from elftia_desktop.core.errors import SecretStoreError, UnsafePermissions
from elftia_desktop.core.paths import check_not_world_writable, unsafe_message
from elftia_desktop.core.secrets import SecretVault
from elftia_desktop.platform.file_access import broad_principals, exposure, windows_sddl

USER = "S-1-5-21-3623811015-3361044348-30300820-1013"
PROFILE_FOLDER = f"D:AI(A;OICIID;FA;;;SY)(A;OICIID;FA;;;BA)(A;OICIID;FA;;;{USER})"
"""``%LOCALAPPDATA%\\elftia``: inherited from the profile, the user, SYSTEM and Administrators only."""
DRIVE_ROOT_FOLDER = (
    "D:AI(A;OICIID;FA;;;BA)(A;OICIID;FA;;;SY)(A;OICIID;0x1200a9;;;BU)(A;ID;0x1301bf;;;AU)(A;OICIIOID;SDGXGWGR;;;AU)"
)
"""``C:\\elftia-data`` (``ELFTIA_DATA_DIR`` outside the profile): Users read, Authenticated Users modify."""


def test_a_profile_folder_is_the_users_alone() -> None:
    assert broad_principals(PROFILE_FOLDER) == []
    assert broad_principals(PROFILE_FOLDER, read=True) == []


def test_a_folder_at_the_drive_root_is_modifiable_by_authenticated_users() -> None:
    assert broad_principals(DRIVE_ROOT_FOLDER) == ["Authenticated Users"]
    assert broad_principals(DRIVE_ROOT_FOLDER, read=True) == ["BUILTIN\\Users", "Authenticated Users"]


@pytest.mark.parametrize(
    ("sddl", "writers"),
    [
        (f"D:PAI(A;OICI;FA;;;WD)(A;OICI;FA;;;{USER})", ["Everyone"]),  # "Everyone: Full control"
        ("D:(A;OICI;0x1301bf;;;S-1-1-0)", ["Everyone"]),  # a SID without an SDDL alias
        ("D:(A;;GW;;;BU)", ["BUILTIN\\Users"]),  # generic write
        ("D:(A;CI;DC;;;BU)", ["BUILTIN\\Users"]),  # "create files / write data" alone
        ("D:(A;;0x100;;;WD)(A;;0x10;;;BU)", []),  # write attributes / extended attributes only
        ("D:(A;OICI;0x1200a9;;;BU)(A;OICI;FR;;;WD)", []),  # read and execute only
        ("D:(A;OICIIO;GA;;;BU)", []),  # inherit-only: for what is created inside, not the folder
        ("D:(D;OICI;FA;;;WD)(A;OICI;FA;;;WD)", []),  # denied before it is allowed
        ("D:(D;;0x2;;;AU)(A;;0x1301bf;;;AU)", ["Authenticated Users"]),  # a partial deny leaves delete
        ("D:NO_ACCESS_CONTROL", ["Everyone", "BUILTIN\\Users", "Authenticated Users"]),  # no DACL at all
        (f"O:{USER}G:{USER}D:P(A;;FA;;;{USER})S:(AU;SA;FA;;;WD)", []),  # an audit entry is no grant
    ],
)
def test_write_rights_of_everyone_users_and_authenticated_users(sddl: str, writers: list[str]) -> None:
    assert broad_principals(sddl) == writers


def test_windows_exposure_names_the_principals_and_the_icacls_fix(tmp_path: Path) -> None:
    folder = Path("C:/elftia-data")
    found = exposure(folder, system="win32", read_sddl=lambda path: DRIVE_ROOT_FOLDER)
    assert found is not None
    assert found.detail == "its access list lets Authenticated Users change it"
    assert found.fix == f'icacls "{folder}" /inheritance:d, then icacls "{folder}" /remove:g *S-1-5-11'
    read = exposure(folder, read=True, system="win32", read_sddl=lambda path: DRIVE_ROOT_FOLDER)
    assert read is not None and read.fix.endswith("/remove:g *S-1-5-32-545 *S-1-5-11")
    assert exposure(folder, system="win32", read_sddl=lambda path: PROFILE_FOLDER) is None

    def missing(path: Path) -> str:
        raise FileNotFoundError(str(path))

    assert exposure(folder, system="win32", read_sddl=missing) is None

    def denied(path: Path) -> str:
        raise PermissionError(5, "Access is denied", str(path))

    assert exposure(folder, system="win32", read_sddl=denied) is None  # logged, not refused


@pytest.mark.skipif(sys.platform != "win32", reason="the Windows ACL API")
def test_the_real_acl_of_a_temporary_folder_is_read(tmp_path: Path) -> None:
    sddl = windows_sddl(tmp_path)
    assert sddl.startswith("D:") and "(A;" in sddl
    assert broad_principals(sddl) == []  # %TEMP% is in the user's profile
    with pytest.raises(FileNotFoundError):
        windows_sddl(tmp_path / "missing")


def test_the_error_reads_as_on_posix() -> None:
    found = exposure(Path("C:/d"), system="win32", read_sddl=lambda path: "D:(A;OICI;FA;;;WD)")
    assert found is not None
    assert unsafe_message("The data folder C:/d can be changed by every user of this computer", found) == (
        "The data folder C:/d can be changed by every user of this computer "
        "(its access list lets Everyone change it), so Elftia will not use it. "
        'Fix it with: icacls "C:/d" /inheritance:d, then icacls "C:/d" /remove:g *S-1-1-0'
    )


@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
def test_posix_modes(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir(mode=0o700)
    assert exposure(folder) is None
    folder.chmod(0o777)
    found = exposure(folder)
    assert found is not None and (found.detail, found.fix) == ("mode 0777", f"chmod 700 {shlex.quote(str(folder))}")
    with pytest.raises(UnsafePermissions, match="mode 0777"):
        check_not_world_writable(folder, "data folder")
    secrets = tmp_path / "secrets.json"
    secrets.write_text("{}")
    secrets.chmod(0o640)
    assert exposure(secrets) is None  # nobody else can change it ...
    assert exposure(secrets, read=True) is not None  # ... but the group can read it


@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
def test_a_secrets_file_others_can_read_is_refused_and_kept(tmp_path: Path) -> None:
    secrets = tmp_path / "secrets.json"
    secrets.write_text('{"s1:env:TOKEN": "value"}')
    secrets.chmod(0o644)
    vault = SecretVault(backend=NoKeyring(), fallback_path=secrets)
    with pytest.raises(SecretStoreError, match=re.escape(f"Fix it with: chmod 600 {shlex.quote(str(secrets))}")):
        vault.load("s1", "env", "TOKEN")
    assert secrets.read_text() == '{"s1:env:TOKEN": "value"}'
    secrets.chmod(0o600)
    assert vault.load("s1", "env", "TOKEN") == "value"
