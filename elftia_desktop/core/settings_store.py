"""The app's settings: ``{data dir}/settings.json``, written with the same safe store as the config.

Shape ``{"version": N, "settings": {...}}``. Saves are atomic with the previous file kept as
``.bak``; a corrupt file is moved aside and reported (the defaults are used, nothing is
silently overwritten before the user saves), and a file from a newer version is refused and
left untouched. A field that no longer validates falls back to its default and is reported.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from elftia_desktop.core.atomic_file import FileLock, atomic_write_text
from elftia_desktop.core.config_store import describe_validation_error
from elftia_desktop.core.errors import ConfigTooNew
from elftia_desktop.core.paths import data_dir

SETTINGS_VERSION = 1
SETTINGS_FILE_NAME = "settings.json"
OFFICIAL_REGISTRY_URL = "https://registry.modelcontextprotocol.io"

StartupMode = Literal["first-use", "at-start"]
ThemeMode = Literal["system", "light", "dark"]


class AppSettings(BaseModel):
    """What the user can set on the Settings page; every service reads its part of it."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    connect_timeout: float = Field(default=30.0, ge=1, le=600)
    """Seconds a server may take to start and answer ``initialize`` (unless the server sets its own)."""
    call_timeout: float = Field(default=120.0, ge=1, le=3600)
    """Seconds one tool call may take (unless the server sets its own)."""
    log_lines: int = Field(default=500, ge=50, le=100_000)
    """Log lines kept per server (stderr and log messages)."""
    startup: StartupMode = "first-use"
    """``at-start``: connect every active, trusted server when the app starts; ``first-use``: when needed."""
    theme: ThemeMode = "system"
    """``system`` follows the desktop's light or dark palette."""
    registry_url: str = Field(default=OFFICIAL_REGISTRY_URL, pattern=r"^https?://[^\s]+$")
    """The MCP registry the Browse page and ``elftia-mcp registry`` use (``ELFTIA_REGISTRY_URL`` overrides it)."""
    extra_registries: list[Annotated[str, Field(pattern=r"^https?://[^\s]+$")]] = Field(default_factory=list)
    """More registries (an organisation's) whose entries are shown beside the main one's."""
    gateway_http_port: int = Field(default=0, ge=0, le=65535)
    """The port of the pool host's HTTP gateway on 127.0.0.1 (0: one the OS picks each time the host starts)."""

    def to_json_dict(self) -> dict[str, Any]:
        """The JSON shape (camelCase keys)."""
        return self.model_dump(mode="json", by_alias=True)


class SettingsStore:
    """The settings on disk; ``notices`` collects problems found while loading."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else data_dir() / SETTINGS_FILE_NAME
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = FileLock(self.path.with_name(self.path.name + ".lock"))
        self.notices: list[str] = []

    def load(self) -> AppSettings:
        """The saved settings, or the defaults (with a notice) when the file is broken."""
        with self._lock.hold():
            try:
                text = self.path.read_text(encoding="utf-8")
            except FileNotFoundError:
                return AppSettings()
            except (OSError, UnicodeDecodeError) as exc:
                return self._recover(f"{self.path.name} cannot be read ({exc})")
            return self._parse(text)

    def save(self, settings: AppSettings) -> AppSettings:
        """Write ``settings`` atomically (the previous file kept as ``.bak``); returns them."""
        payload = {"version": SETTINGS_VERSION, "settings": settings.to_json_dict()}
        with self._lock.hold():
            self._refuse_newer()
            text = json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
            atomic_write_text(self.path, text, keep_backup=self.path.exists())
        return settings

    def _refuse_newer(self) -> None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        version = data.get("version") if isinstance(data, dict) else None
        if isinstance(version, int) and version > SETTINGS_VERSION:
            raise ConfigTooNew(self._too_new(version))

    def _too_new(self, version: int) -> str:
        return (
            f"{self.path} was written by a newer Elftia (settings version {version}; this one reads up to "
            f"{SETTINGS_VERSION}). Update Elftia; the file was left untouched."
        )

    def _parse(self, text: str) -> AppSettings:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            return self._recover(f"{self.path.name} is not valid JSON (line {exc.lineno}, column {exc.colno})")
        if not isinstance(data, dict) or not isinstance(data.get("settings", {}), dict):
            return self._recover(f"{self.path.name}: expected an object with 'settings'")
        version = data.get("version", 0)
        if isinstance(version, int) and version > SETTINGS_VERSION:
            raise ConfigTooNew(self._too_new(version))
        values: dict[str, Any] = dict(data.get("settings", {}))
        try:
            return AppSettings.model_validate(values)
        except ValidationError as exc:
            self._notice(
                f"{self.path.name}: {describe_validation_error(exc)}; those settings use their defaults until you save"
            )
            bad = {str(err["loc"][0]) for err in exc.errors() if err["loc"]}
            return AppSettings.model_validate({k: v for k, v in values.items() if k not in bad and k in _FIELDS})

    def _recover(self, reason: str) -> AppSettings:
        moved = self.path.with_name(f"{self.path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
        try:
            os.replace(self.path, moved)
        except OSError:
            self._notice(f"{reason}; the defaults are used until you save.")
            return AppSettings()
        self._notice(f"{reason}. The file was moved to {moved.name}; the defaults are used until you save.")
        return AppSettings()

    def _notice(self, text: str) -> None:
        if text not in self.notices:
            self.notices.append(text)


_FIELDS = {field.alias or name for name, field in AppSettings.model_fields.items()} | set(AppSettings.model_fields)
