"""Issue 35: the keyring fallback names the store of the OS it runs on (the OS passed in as a value)."""

from __future__ import annotations

import sys
from pathlib import Path

from keyring.backends.fail import Keyring as NoKeyring

from elftia_desktop.core.secrets import SecretVault
from elftia_desktop.platform.keyring_store import keyring_help, keyring_store


def test_each_os_names_its_own_store() -> None:
    assert keyring_store("win32") == "the Windows Credential Locker"
    assert keyring_store("darwin") == "the macOS login Keychain"
    assert keyring_store("linux") == "a Secret Service keyring (GNOME Keyring, KWallet)"
    assert keyring_store("freebsd14") == keyring_store("linux")


def test_the_help_speaks_of_that_os_only() -> None:
    windows, mac, linux = keyring_help("win32"), keyring_help("darwin"), keyring_help("linux")
    assert "Credential Manager" in windows and "logon session" in windows
    assert "Keychain" not in windows and "gnome-keyring" not in windows
    assert "Keychain Access" in mac and "Credential" not in mac and "gnome-keyring" not in mac
    assert "sudo apt-get install gnome-keyring" in linux and "Keychain" not in linux and "Credential" not in linux


def test_the_vaults_fallback_warning_names_this_oss_store(tmp_path: Path) -> None:
    vault = SecretVault(backend=NoKeyring(), fallback_path=tmp_path / "secrets.json")
    assert vault.warning is not None
    assert vault.warning.endswith(f"Install or unlock {keyring_store(sys.platform)} to keep them there instead.")
    others = [keyring_store(s) for s in ("win32", "darwin", "linux") if keyring_store(s) != keyring_store(sys.platform)]
    assert not any(other in vault.warning for other in others)
