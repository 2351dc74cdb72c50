"""The persistent server list: ``{data dir}/mcp-config.json``.

Shape ``{"version": N, "mcpServers": [record, ...]}``; the original Electron app's
``{"mcpServers": [...]}`` and a bare list are read too. Every change is a locked
read-modify-write (the GUI and ``elftia-mcp`` may write at once), written atomically with
the previous good file kept as ``.bak``. A corrupt file is moved aside and reported, a file
from a newer version is refused and left untouched, and an entry that no longer validates is
kept verbatim (and reported) instead of being dropped.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from elftia_desktop.core.atomic_file import FileLock, atomic_write_text
from elftia_desktop.core.errors import ConfigCorrupt, ConfigError, ConfigTooNew, JsonInputError
from elftia_desktop.core.json_input import MAX_APP_CONFIG_CHARS, parse_json_text
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.core.paths import data_dir

CONFIG_VERSION = 1
CONFIG_FILE_NAME = "mcp-config.json"

T = TypeVar("T")


@dataclass
class _Snapshot:
    records: list[McpServerRecord] = field(default_factory=list)
    invalid: list[Any] = field(default_factory=list)
    stamp: tuple[int, int, int] | None = None


def describe_validation_error(exc: ValidationError) -> str:
    """One line per problem, naming the field with the JSON (camelCase) path."""
    lines = []
    for err in exc.errors():
        where = ".".join(str(part) for part in err["loc"])
        message = err["msg"].removeprefix("Value error, ")
        lines.append(f"{where}: {message}" if where and not message.startswith(f"{where}:") else message)
    return "; ".join(lines)


class ConfigStore:
    """The server records on disk, safe for concurrent writers.

    ``notices`` collects problems found while loading (recovered from ``.bak``, entries kept
    because they no longer validate) for the UI or CLI to show.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else data_dir() / CONFIG_FILE_NAME
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = FileLock(self.path.with_name(self.path.name + ".lock"))
        self._snapshot = _Snapshot()
        self.notices: list[str] = []
        self.fresh = not self.path.exists() and not self.backup_path.exists()
        """True when no config existed: a fresh install."""
        with self._lock.hold():
            self._reload_if_changed(force=True)

    @property
    def backup_path(self) -> Path:
        """The last good file before the latest write."""
        return self.path.with_name(self.path.name + ".bak")

    def records(self) -> list[McpServerRecord]:
        """All records, re-read when another process changed the file."""
        with self._lock.hold():
            self._reload_if_changed()
            return [record.model_copy(deep=True) for record in self._snapshot.records]

    def get(self, server_id: str) -> McpServerRecord | None:
        """The record with that id, if any."""
        return next((r for r in self.records() if r.id == server_id), None)

    def mutate(self, change: Callable[[list[McpServerRecord]], T]) -> T:
        """Apply ``change`` to the current list under the lock, then save atomically.

        ``change`` edits the list in place and returns a value passed back to the caller.
        If it raises, nothing is written.
        """
        with self._lock.hold():
            self._reload_if_changed()
            records = [record.model_copy(deep=True) for record in self._snapshot.records]
            result = change(records)
            self._write(records)
            return result

    # -- loading -----------------------------------------------------------------------------

    def _file_stamp(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def _reload_if_changed(self, force: bool = False) -> None:
        stamp = self._file_stamp()
        if not force and stamp == self._snapshot.stamp:
            return
        if stamp is None:
            self._snapshot = _Snapshot()
            return
        try:
            self._snapshot = self._parse(self.path.read_text(encoding="utf-8"))
        except ConfigTooNew:
            raise
        except (ConfigCorrupt, OSError, UnicodeDecodeError) as exc:
            self._snapshot = self._recover(exc)
            return
        self._snapshot.stamp = stamp

    def _parse(self, text: str) -> _Snapshot:
        try:
            data = parse_json_text(text, self.path.name, max_chars=MAX_APP_CONFIG_CHARS)
        except JsonInputError as exc:
            raise ConfigCorrupt(str(exc)) from exc
        if isinstance(data, list):
            entries: Any = data
        elif isinstance(data, dict):
            version = data.get("version", 0)
            if not isinstance(version, int):
                raise ConfigCorrupt(f"{self.path.name}: 'version' must be a whole number")
            if version > CONFIG_VERSION:
                raise ConfigTooNew(
                    f"{self.path} was written by a newer Elftia (config version {version}; this one "
                    f"reads up to {CONFIG_VERSION}). Update Elftia; the file was left untouched."
                )
            entries = data.get("mcpServers", [])
        else:
            raise ConfigCorrupt(f"{self.path.name}: expected an object with 'mcpServers', got {type(data).__name__}")
        if not isinstance(entries, list):
            raise ConfigCorrupt(f"{self.path.name}: 'mcpServers' must be a list")
        snapshot = _Snapshot()
        for index, entry in enumerate(entries):
            try:
                snapshot.records.append(McpServerRecord.model_validate(entry))
            except ValidationError as exc:
                name = entry.get("name") if isinstance(entry, dict) else None
                snapshot.invalid.append(entry)
                self._notice(
                    f"Server #{index + 1}{f' {name!r}' if name else ''} in {self.path.name} is not valid and "
                    f"was kept as it is, unused: {describe_validation_error(exc)}"
                )
        return snapshot

    def _recover(self, problem: Exception) -> _Snapshot:
        moved = self.path.with_name(f"{self.path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
        os.replace(self.path, moved)
        reason = str(problem) or type(problem).__name__
        try:
            snapshot = self._parse(self.backup_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ConfigError) as backup_problem:
            self._notice(
                f"{reason}. The file was moved to {moved.name}; no usable backup "
                f"({backup_problem if self.backup_path.exists() else 'none found'}), so the list starts empty."
            )
            return _Snapshot()
        self._notice(f"{reason}. The file was moved to {moved.name} and the last good copy (.bak) was loaded.")
        self._write(snapshot.records, snapshot.invalid, keep_backup=False)
        return self._snapshot

    def _notice(self, text: str) -> None:
        if text not in self.notices:
            self.notices.append(text)

    # -- saving ------------------------------------------------------------------------------

    def _write(
        self,
        records: list[McpServerRecord],
        invalid: list[Any] | None = None,
        keep_backup: bool = True,
    ) -> None:
        kept = self._snapshot.invalid if invalid is None else invalid
        payload = {
            "version": CONFIG_VERSION,
            "mcpServers": [r.to_json_dict() for r in records] + list(kept),
        }
        atomic_write_text(self.path, json.dumps(payload, indent=2, ensure_ascii=False) + "\n", keep_backup=keep_backup)
        self._snapshot = _Snapshot(records=records, invalid=list(kept), stamp=self._file_stamp())
