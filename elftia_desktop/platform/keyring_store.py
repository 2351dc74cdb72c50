"""Which OS store the ``keyring`` package keeps secrets in, per OS, and what to do when it does not work.

Named as the user finds it: the Secret Service (GNOME Keyring, KWallet) on Linux, the login
Keychain on macOS, the Windows Credential Locker (shown in Control Panel > Credential Manager)
on Windows. The vault's fallback warning and the Settings page's help use these words.
"""

from __future__ import annotations

import sys

KEYRING_STORES = {
    "linux": "a Secret Service keyring (GNOME Keyring, KWallet)",
    "darwin": "the macOS login Keychain",
    "win32": "the Windows Credential Locker",
}
_THEN = "Secrets saved from then on go to the keyring; the file keeps only what is already in it."
KEYRING_HELP = {
    "linux": (
        "Install and unlock a Secret Service keyring, then restart Elftia:\n"
        "  GNOME:  sudo apt-get install gnome-keyring   (it unlocks when you log in)\n"
        "  KDE:    KWallet (kwalletmanager), enabled in System Settings\n" + _THEN
    ),
    "darwin": (
        "The macOS login Keychain is used normally: check in Keychain Access that the login keychain "
        "exists and is unlocked, then restart Elftia.\n" + _THEN
    ),
    "win32": (
        "The Windows Credential Locker is used normally (Control Panel > Credential Manager > Windows "
        "Credentials). It does not work in a session without a user logon (a service, an SSH session: "
        '"A specified logon session does not exist"), or when a policy forbids storing credentials '
        '("Network access: Do not allow storage of passwords and credentials for network authentication"). '
        "Once it works, restart Elftia from your desktop session.\n" + _THEN
    ),
}


def _os_key(system: str) -> str:
    """``sys.platform``'s value as a key of the tables (other POSIX systems use a Secret Service too)."""
    return system if system in ("darwin", "win32") else "linux"


def keyring_store(system: str = sys.platform) -> str:
    """The OS store secrets go to on ``system`` (``sys.platform``'s value), as the user would look for it."""
    return KEYRING_STORES[_os_key(system)]


def keyring_help(system: str = sys.platform) -> str:
    """How to get the keyring of ``system`` working when the fallback file is used."""
    return KEYRING_HELP[_os_key(system)]
