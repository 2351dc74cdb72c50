"""Settings channels: read and save the settings, where things live, the secrets backend, a backup."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

from elftia_desktop.bridge.pending import Pending
from elftia_desktop.bridge.plumbing import Route
from elftia_desktop.bridge.results import BackupResult, SecretsBackend, SettingsPaths, SettingsView
from elftia_desktop.platform.keyring_store import keyring_help

if TYPE_CHECKING:
    from elftia_desktop.bridge.channels import SettingsSaveInput
    from elftia_desktop.bridge.services import AppServices
    from elftia_desktop.core.settings_store import AppSettings


class SettingsRoute(Route):
    """``app:settings``, ``app:save-settings``, ``app:export-backup``."""

    def load(self) -> Pending[SettingsView]:
        """``app:settings``: the values in force, the folders and the secrets backend."""

        async def work(s: AppServices) -> SettingsView:
            """``app:settings`` on the service loop."""
            return await asyncio.to_thread(_describe, s)

        return self._core.submit("app:settings", work)

    def save(self, values: SettingsSaveInput) -> Pending[AppSettings]:
        """``app:save-settings``: the settings ``values`` gives (checked when it was built; the others keep
        their saved value), saved atomically and put in force; the settings saved."""
        changed = values.model_dump(exclude_unset=True)

        async def work(s: AppServices) -> AppSettings:
            """``app:save-settings`` on the service loop."""
            from elftia_desktop.core.settings_store import AppSettings

            saved = await asyncio.to_thread(s.settings_store.load)  # a setting the page does not show keeps its value
            settings = AppSettings.model_validate(saved.model_dump() | changed)
            await asyncio.to_thread(s.settings_store.save, settings)
            s.apply_settings(settings)
            return settings

        return self._core.submit("app:save-settings", work)

    def export_backup(self, path: str) -> Pending[BackupResult]:
        """``app:export-backup``: the whole config and settings in one file, secrets left as references."""
        from elftia_desktop.bridge.channels import BackupInput

        async def work(s: AppServices, data: BackupInput) -> BackupResult:
            """``app:export-backup`` on the service loop."""
            return await asyncio.to_thread(_write_backup, s, Path(data.path))

        return self._core.call("app:export-backup", BackupInput, {"path": path}, work)


def _describe(s: AppServices) -> SettingsView:
    import keyring

    from elftia_desktop.core.paths import config_dir, data_dir
    from elftia_desktop.core.secrets import SECRETS_FILE_NAME

    vault = s.catalog.vault
    backend = keyring.get_keyring()
    return SettingsView(
        settings=s.settings.model_copy(),
        paths=SettingsPaths(
            data_dir=str(data_dir()),
            config_dir=str(config_dir()),
            config_file=str(s.catalog.store.path),
            settings_file=str(s.settings_store.path),
            tools_dir=str(s.installer.tools_dir),
        ),
        secrets=SecretsBackend(
            uses_keyring=vault.uses_keyring,
            backend=f"{type(backend).__module__}.{type(backend).__name__}",
            backend_name=getattr(backend, "name", type(backend).__name__),
            fallback_file=str(config_dir() / SECRETS_FILE_NAME),
            warning=vault.warning,
            help=None if vault.uses_keyring else keyring_help(),
        ),
    )


def _write_backup(s: AppServices, target: Path) -> BackupResult:
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
    return BackupResult(str(target), len(records), secrets)
