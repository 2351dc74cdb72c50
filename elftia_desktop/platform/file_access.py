"""Who besides the user may change (or read) a file or folder: the mode on POSIX, the ACL on Windows.

On POSIX it is the mode (``o+w``; for ``read=True`` any group or other bit). On Windows 0600/0700
mean nothing: what counts is the DACL, read as SDDL through ``GetNamedSecurityInfoW`` (ctypes) and
checked for allow entries giving Everyone, BUILTIN\\Users or Authenticated Users (the well-known SIDs
every user of the computer holds) a right to write, delete or change the permissions (and, with
``read=True``, any right at all). SDDL names these SIDs the same on every Windows language
(``WD``, ``BU``, ``AU``), unlike ``icacls``' display, which prints localized account names
(``Jeder``, ``VORDEFINIERT\\Benutzer``) and has no option to print SIDs.
"""

from __future__ import annotations

import logging
import os
import re
import shlex
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

BROAD_SIDS = {
    "S-1-1-0": "Everyone",
    "S-1-5-32-545": "BUILTIN\\Users",
    "S-1-5-11": "Authenticated Users",
}
"""The well-known SIDs that every local user's token holds."""
_SDDL_ALIASES = {"WD": "S-1-1-0", "BU": "S-1-5-32-545", "AU": "S-1-5-11"}
_RIGHT_BITS = {
    "GA": 0x10000000, "GX": 0x20000000, "GW": 0x40000000, "GR": 0x80000000,
    "RC": 0x20000, "SD": 0x10000, "WD": 0x40000, "WO": 0x80000,
    "CC": 0x1, "DC": 0x2, "LC": 0x4, "SW": 0x8, "RP": 0x10, "WP": 0x20, "DT": 0x40, "LO": 0x80, "CR": 0x100,
    "FA": 0x1F01FF, "FR": 0x120089, "FW": 0x120116, "FX": 0x1200A0,
}  # fmt: skip
WRITE_BITS = 0x2 | 0x4 | 0x40 | 0x10000 | 0x40000 | 0x80000 | 0x10000000 | 0x40000000
"""Write data / add file, append / add folder, delete child, delete, change permissions, take
ownership, generic all, generic write (attributes and extended attributes alone do not count)."""
_ACE = re.compile(r"\(([^;()]*);([^;()]*);([^;()]*);[^;()]*;[^;()]*;([^;()]*)\)")
_DACL = re.compile(r"D:([A-Z]*)((?:\([^()]*\))*)")
_FIX_SIDS = {"Everyone": "*S-1-1-0", "BUILTIN\\Users": "*S-1-5-32-545", "Authenticated Users": "*S-1-5-11"}


@dataclass(frozen=True)
class Exposure:
    """Why a path is open to other users (``mode 0777``, the access list's entries) and the command that ends it."""

    detail: str
    fix: str


def exposure(
    path: Path, *, read: bool = False, system: str = sys.platform, read_sddl: Callable[[Path], str] | None = None
) -> Exposure | None:
    """How ``path`` is open to other users (None when it is not, or does not exist).

    ``read=True`` also counts reading (a secrets file). ``system`` is ``sys.platform``'s value;
    ``read_sddl`` reads a Windows DACL as SDDL (default :func:`windows_sddl`). An ACL that cannot be
    read (no right to read it, a failing call) is logged and the path used: a check that cannot run
    does not lock the user out of their own data.
    """
    if system == "win32":
        try:
            sddl = (read_sddl or windows_sddl)(path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning("The access list of %s could not be read: %s", path, exc)
            return None
        names = broad_principals(sddl, read=read)
        if not names:
            return None
        right = "access" if read else "change"
        removes = " ".join(_FIX_SIDS[name] for name in names)
        return Exposure(
            f"its access list lets {' and '.join(names)} {right} it",
            f'icacls "{path}" /inheritance:d, then icacls "{path}" /remove:g {removes}',
        )
    return _posix_exposure(path, read)


def _posix_exposure(path: Path, read: bool) -> Exposure | None:
    """The mode's part for every user (``read``: any group or other bit)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None
    if not mode & (0o077 if read else stat.S_IWOTH):
        return None
    fix = "700" if stat.S_ISDIR(mode) else "600"
    return Exposure(f"mode {stat.S_IMODE(mode):04o}", f"chmod {fix} {shlex.quote(str(path))}")


def broad_principals(sddl: str, *, read: bool = False) -> list[str]:
    """The names of :data:`BROAD_SIDS` that the DACL of ``sddl`` allows to write (``read``: anything).

    Entries are taken in order as Windows does: a deny entry for the same SID takes its rights away
    from later allow entries; inherit-only entries (``IO``) do not apply to the object itself. A
    missing DACL (``D:NO_ACCESS_CONTROL``, or no ``D:`` part) gives everyone everything.
    """
    dacl = _DACL.search(sddl)
    if dacl is None or "D:NO_ACCESS_CONTROL" in sddl:
        return list(BROAD_SIDS.values())
    wanted = ~0 if read else WRITE_BITS
    denied: dict[str, int] = {}
    found: list[str] = []
    for kind, flags, rights, account in _ACE.findall(dacl.group(2)):
        sid = _SDDL_ALIASES.get(account, account)
        if sid not in BROAD_SIDS or "IO" in _flag_codes(flags):
            continue
        bits = _rights(rights)
        if kind == "D":
            denied[sid] = denied.get(sid, 0) | bits
        elif kind == "A" and bits & ~denied.get(sid, 0) & wanted and BROAD_SIDS[sid] not in found:
            found.append(BROAD_SIDS[sid])
    return found


def _flag_codes(flags: str) -> list[str]:
    """``OICIIOID`` as ``["OI", "CI", "IO", "ID"]``."""
    return [flags[i : i + 2] for i in range(0, len(flags), 2)]


def _rights(text: str) -> int:
    """An SDDL rights field (``0x1301bf`` or letter pairs such as ``FA``, ``SDGXGWGR``) as a mask."""
    if text.lower().startswith("0x"):
        return int(text, 16)
    if text.isdigit():
        return int(text)
    return sum(_RIGHT_BITS.get(code, 0) for code in set(_flag_codes(text)))


def windows_sddl(path: Path) -> str:  # pragma: no cover - Windows only
    """The DACL of ``path`` as SDDL (``GetNamedSecurityInfoW``); ``FileNotFoundError`` when it is missing."""
    assert sys.platform == "win32"
    import ctypes
    from ctypes import wintypes

    advapi32 = ctypes.WinDLL("advapi32", use_last_error=True)  # type: ignore[attr-defined,unused-ignore]
    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined,unused-ignore]
    se_file_object, dacl_information = 1, 4
    descriptor = ctypes.c_void_p()
    error = advapi32.GetNamedSecurityInfoW(
        ctypes.c_wchar_p(str(path)), se_file_object, dacl_information,
        None, None, None, None, ctypes.byref(descriptor),
    )  # fmt: skip
    if error in (2, 3):  # ERROR_FILE_NOT_FOUND, ERROR_PATH_NOT_FOUND
        raise FileNotFoundError(str(path))
    if error:
        raise OSError(error, f"GetNamedSecurityInfoW failed for {path}")
    text = ctypes.c_wchar_p()
    try:
        converted = advapi32.ConvertSecurityDescriptorToStringSecurityDescriptorW(
            descriptor, 1, dacl_information, ctypes.byref(text), ctypes.byref(wintypes.ULONG())
        )
        if not converted:
            raise ctypes.WinError(ctypes.get_last_error())  # type: ignore[attr-defined,unused-ignore]
        value = text.value or ""
        kernel32.LocalFree(text)
        return value
    finally:
        kernel32.LocalFree(descriptor)
