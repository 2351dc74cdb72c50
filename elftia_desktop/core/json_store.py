"""A versioned JSON file holding a list of pydantic models, safe for concurrent writers.

Shape ``{"version": N, "<key>": [entry, ...]}``; a bare list is read too. Every change is a
locked read-modify-write (the GUI and ``elftia-mcp`` may write at once), written atomically
with the previous good file kept as ``.bak``. A corrupt file is moved aside and reported (the
``.bak`` is loaded when it is good), a file from a newer version is refused and left untouched,
and an entry that no longer validates is kept verbatim (and reported) instead of being dropped.
``mcp-config.json`` (:mod:`core.config_store`) and ``agents.json`` (:mod:`core.agent_store`)
are both such files.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from elftia_desktop.core.atomic_file import FileLock, atomic_write_text
from elftia_desktop.core.errors import ConfigCorrupt, ConfigError, ConfigTooNew, JsonInputError
from elftia_desktop.core.json_input import MAX_APP_CONFIG_CHARS, parse_json_text
from elftia_desktop.core.paths import check_not_world_writable
from elftia_desktop.core.text_rules import quoted

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")


def describe_validation_error(exc: ValidationError) -> str:
    """One line per problem, naming the field with the JSON (camelCase) path."""
    lines = []
    for err in exc.errors():
        where = ".".join(str(part) for part in err["loc"])
        message = err["msg"].removeprefix("Value error, ")
        lines.append(f"{where}: {message}" if where and not message.startswith(f"{where}:") else message)
    return "; ".join(lines)


@dataclass
class _Snapshot(Generic[M]):
    items: list[M] = field(default_factory=list)
    invalid: list[Any] = field(default_factory=list)
    stamp: tuple[int, int, int] | None = None


class JsonListStore(Generic[M]):
    """The entries of one JSON file on disk; subclasses name the model, the key and the version.

    ``notices`` collects problems found while loading (recovered from ``.bak``, entries kept
    because they no longer validate) for the UI or CLI to show.
    """

    model: ClassVar[type[BaseModel]]
    """The pydantic model of one entry."""
    list_key: ClassVar[str]
    """The key of the entry list in the file (``mcpServers``, ``agents``)."""
    version: ClassVar[int]
    """The newest file version this code reads and the one it writes."""
    entry_label: ClassVar[str]
    """What an entry is called in notices (``Server``, ``Agent``)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._lock = FileLock(self.path.with_name(self.path.name + ".lock"))
        self._snapshot: _Snapshot[M] = _Snapshot()
        self.notices: list[str] = []
        self.fresh = not self.path.exists() and not self.backup_path.exists()
        """True when no file existed: a fresh install."""
        with self._lock.hold():
            self._reload_if_changed(force=True)

    @property
    def backup_path(self) -> Path:
        """The last good file before the latest write."""
        return self.path.with_name(self.path.name + ".bak")

    def _items(self) -> list[M]:
        """All entries (copies), re-read when another process changed the file."""
        with self._lock.hold():
            self._reload_if_changed()
            return [item.model_copy(deep=True) for item in self._snapshot.items]

    def current_items(self) -> list[M] | None:
        """The entries as last read or written, when the file has not changed since; else None.

        No lock and no read, only a ``stat``: cheap enough for the service loop. The list and its
        entries are shared: do not change them.
        """
        snapshot = self._snapshot
        return snapshot.items if self._file_stamp() == snapshot.stamp else None

    def mutate(self, change: Callable[[list[M]], T]) -> T:
        """Apply ``change`` to the current list under the lock, then save atomically.

        ``change`` edits the list in place and returns a value passed back to the caller.
        If it raises, nothing is written.
        """
        with self._lock.hold():
            self._reload_if_changed()
            items = [item.model_copy(deep=True) for item in self._snapshot.items]
            result = change(items)
            self._write(items)
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
        check_not_world_writable(self.path, "file")
        try:
            self._snapshot = self._parse(self.path.read_text(encoding="utf-8"))
        except ConfigTooNew:
            raise
        except (ConfigCorrupt, OSError, UnicodeDecodeError) as exc:
            self._snapshot = self._recover(exc)
            return
        self._snapshot.stamp = stamp

    def _entries(self, data: Any) -> list[Any]:
        name, key = self.path.name, self.list_key
        if isinstance(data, list):
            return data
        if not isinstance(data, dict):
            raise ConfigCorrupt(f"{name}: expected an object with {quoted(key)}, got {type(data).__name__}")
        version = data.get("version", 0)
        if not isinstance(version, int):
            raise ConfigCorrupt(f"{name}: 'version' must be a whole number")
        if version > self.version:
            raise ConfigTooNew(
                f"{self.path} was written by a newer Elftia (config version {version}; this one "
                f"reads up to {self.version}). Update Elftia; the file was left untouched."
            )
        entries = data.get(key, [])
        if not isinstance(entries, list):
            raise ConfigCorrupt(f"{name}: {quoted(key)} must be a list")
        return entries

    def _parse(self, text: str) -> _Snapshot[M]:
        try:
            data = parse_json_text(text, self.path.name, max_chars=MAX_APP_CONFIG_CHARS)
        except JsonInputError as exc:
            raise ConfigCorrupt(str(exc)) from exc
        snapshot: _Snapshot[M] = _Snapshot()
        for index, entry in enumerate(self._entries(data)):
            try:
                snapshot.items.append(self.model.model_validate(entry))  # type: ignore[arg-type]
            except ValidationError as exc:
                name = entry.get("name") if isinstance(entry, dict) else None
                snapshot.invalid.append(entry)
                self._notice(
                    f"{self.entry_label} #{index + 1}{f' {quoted(name)}' if name else ''} in {self.path.name} is not "
                    f"valid and was kept as it is, unused: {describe_validation_error(exc)}"
                )
        return snapshot

    def _recover(self, problem: Exception) -> _Snapshot[M]:
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
        self._write(snapshot.items, snapshot.invalid, keep_backup=False)
        return self._snapshot

    def _notice(self, text: str) -> None:
        if text not in self.notices:
            self.notices.append(text)

    # -- saving ------------------------------------------------------------------------------

    def _dump(self, item: M) -> dict[str, Any]:
        """The JSON form of one entry (camelCase keys, unset optionals left out)."""
        return item.model_dump(mode="json", by_alias=True, exclude_none=True)

    def _write(self, items: list[M], invalid: list[Any] | None = None, keep_backup: bool = True) -> None:
        kept = self._snapshot.invalid if invalid is None else invalid
        payload = {"version": self.version, self.list_key: [self._dump(i) for i in items] + list(kept)}
        atomic_write_text(self.path, json.dumps(payload, indent=2, ensure_ascii=False) + "\n", keep_backup=keep_backup)
        self._snapshot = _Snapshot(items=items, invalid=list(kept), stamp=self._file_stamp())
