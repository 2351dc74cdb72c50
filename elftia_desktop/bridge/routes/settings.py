"""Settings channels: read and save the settings, where things live, the secrets backend, a backup."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from elftia_desktop.bridge.plumbing import Done, Failed, RouterCore

if TYPE_CHECKING:
    from elftia_desktop.bridge.services import AppServices

KEYRING_HELP = {
    "linux": (
        "Install and unlock a Secret Service keyring, then restart Elftia:\n"
        "  GNOME:  sudo apt-get install gnome-keyring   (it unlocks when you log in)\n"
        "  KDE:    KWallet (kwalletmanager), enabled in System Settings\n"
        "Secrets saved from then on go to the keyring; the file keeps only what is already in it."
    ),
    "darwin": "The macOS Keychain is used normally; check that the login keychain is unlocked (Keychain Access).",
    "win32": "Windows Credential Manager is used normally; check that it is not disabled by a policy.",
}


class SettingsChannels(RouterCore):
    """``app:settings``, ``app:save-settings``, ``app:export-backup``."""

    def settings(self, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``app:settings``: ``{settings, paths, secrets}``: the values, the folders and the secrets backend."""

        async def work(s: AppServices) -> dict[str, Any]:
            return await asyncio.to_thread(_describe, s)

        return self._submit("app:settings", work, on_done, on_error)

    def save_settings(self, values: dict[str, Any], on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``app:save-settings``: validate, save atomically, and put the new values in force."""
        data, refused = self._validated("app:save-settings", "SettingsSaveInput", values, on_error)
        if data is None:
            return refused

        async def work(s: AppServices) -> dict[str, Any]:
            from elftia_desktop.core.settings_store import AppSettings

            settings = AppSettings.model_validate(data.model_dump())
            await asyncio.to_thread(s.settings_store.save, settings)
            s.apply_settings(settings)
            return settings.to_json_dict()

        return self._submit("app:save-settings", work, on_done, on_error)

    def export_backup(self, path: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``app:export-backup``: the whole config and settings in one file, secrets left as references."""
        data, refused = self._validated("app:export-backup", "BackupInput", {"path": path}, on_error)
        if data is None:
            return refused
        target = Path(data.path)

        async def work(s: AppServices) -> dict[str, Any]:
            return await asyncio.to_thread(_write_backup, s, target)

        return self._submit("app:export-backup", work, on_done, on_error)


def _describe(s: AppServices) -> dict[str, Any]:
    import keyring

    from elftia_desktop.core.paths import config_dir, data_dir
    from elftia_desktop.core.secrets import SECRETS_FILE_NAME

    vault = s.catalog.vault
    backend = keyring.get_keyring()
    return {
        "settings": s.settings.to_json_dict(),
        "paths": {
            "dataDir": str(data_dir()),
            "configDir": str(config_dir()),
            "configFile": str(s.catalog.store.path),
            "settingsFile": str(s.settings_store.path),
            "toolsDir": str(s.installer.tools_dir),
        },
        "secrets": {
            "usesKeyring": vault.uses_keyring,
            "backend": f"{type(backend).__module__}.{type(backend).__name__}",
            "backendName": getattr(backend, "name", type(backend).__name__),
            "fallbackFile": str(config_dir() / SECRETS_FILE_NAME),
            "warning": vault.warning,
            "help": None if vault.uses_keyring else KEYRING_HELP.get(sys.platform, KEYRING_HELP["linux"]),
        },
    }


def _write_backup(s: AppServices, target: Path) -> dict[str, Any]:
    """Records as stored (secret values are ``${secret:NAME}`` references, never values) plus settings."""
    from elftia_desktop.core.atomic_file import atomic_write_text
    from elftia_desktop.core.config_store import CONFIG_VERSION

    records = s.catalog.all()
    payload = {
        "version": CONFIG_VERSION,
        "exportedAt": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "note": "Elftia backup without secrets: ${secret:NAME} values must be entered again after a restore.",
        "mcpServers": [r.to_json_dict() for r in records],
        "settings": s.settings.to_json_dict(),
    }
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(target, json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    secrets = sum(1 for r in records for v in [*r.config.env.values(), *r.config.headers.values()] if "${secret:" in v)
    return {"path": str(target), "servers": len(records), "secretsLeftOut": secrets}
