"""Registries kept on disk and searched in memory.

Each registry's latest entries live in ``{data dir}/registry/<host>-<hash>.json``
(``{"version": 1, "registry", "syncedAt", "servers": [{server, _meta}]}``, written atomically).
The first sync reads every page; later syncs ask only for entries ``updated_since`` the last one
(deleted ones included: the registry says so by default, and we ask for it) and merge them by
name: an entry that comes back ``deleted`` leaves the cache. A :class:`RegistryIndex` holds the
entries of every registry (and the featured ones shipped with the app) and answers a search
keystroke from memory.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from pydantic import ValidationError

from elftia_desktop.core.atomic_file import atomic_write_text
from elftia_desktop.core.errors import JsonInputError
from elftia_desktop.core.json_input import parse_json_text
from elftia_desktop.core.paths import data_dir
from elftia_desktop.core.resources import read_resource_text
from elftia_desktop.registry.client import RegistryClient
from elftia_desktop.registry.entry import EntryStatus, RegistryEntry, entry_from_wire

CACHE_VERSION = 1
FEATURED_RESOURCE = "featured.json"
FEATURED_SOURCE = "featured"
_CACHE_LIMIT = 256 * 1024 * 1024


def cache_folder() -> Path:
    """Where registry caches are kept."""
    return data_dir() / "registry"


def utc_stamp(seconds: float | None = None) -> str:
    """RFC 3339 UTC time, the format of ``updated_since``."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() if seconds is None else seconds))


@dataclass
class SyncResult:
    """What one sync did."""

    registry: str
    entries: int
    changed: int
    full: bool
    removed: int = 0
    """Entries that came back ``deleted`` on an incremental sync and left the cache."""


@dataclass
class RegistryCache:
    """One registry's entries on disk."""

    registry: str
    folder: Path = field(default_factory=cache_folder)
    synced_at: str | None = None
    entries: dict[str, RegistryEntry] = field(default_factory=dict)

    @property
    def path(self) -> Path:
        """The cache file of this registry."""
        host = urlparse(self.registry).hostname or "registry"
        digest = hashlib.sha256(self.registry.encode()).hexdigest()[:10]
        return self.folder / f"{host}-{digest}.json"

    def load(self) -> RegistryCache:
        """Read the file if there is one; a broken file is ignored (the next sync is a full one)."""
        try:
            data = parse_json_text(self.path.read_text(encoding="utf-8"), str(self.path), max_chars=_CACHE_LIMIT)
        except (OSError, UnicodeDecodeError, JsonInputError):
            return self
        if not isinstance(data, dict) or data.get("version") != CACHE_VERSION:
            return self
        entries: dict[str, RegistryEntry] = {}
        for item in data.get("servers") or []:
            try:
                entry = entry_from_wire(item, self.registry)
            except (ValidationError, AttributeError):
                continue
            entries[entry.server.name] = entry
        self.entries, self.synced_at = entries, data.get("syncedAt")
        return self

    def save(self) -> None:
        """Write the file atomically."""
        payload: dict[str, Any] = {
            "version": CACHE_VERSION,
            "registry": self.registry,
            "syncedAt": self.synced_at,
            "servers": [entry.to_wire() for entry in self.entries.values()],
        }
        self.folder.mkdir(parents=True, exist_ok=True)
        # a cache needs no fsync: after a power loss it is simply fetched again
        atomic_write_text(self.path, json.dumps(payload, ensure_ascii=False), durable=False)

    async def sync(self, client: RegistryClient, *, full: bool = False) -> SyncResult:
        """Fetch what changed since the last sync (every page the first time); then save."""
        started = utc_stamp()
        since = None if full or not self.entries else self.synced_at
        fresh: dict[str, RegistryEntry] = {}
        async for entry in client.all_entries(updated_since=since):
            fresh[entry.server.name] = entry
        merged = fresh if since is None else self.entries | fresh
        gone = [name for name, entry in fresh.items() if entry.status is EntryStatus.DELETED]
        for name in gone if since is not None else ():
            merged.pop(name, None)
        self.entries = merged
        self.synced_at = started
        await asyncio.to_thread(self.save)
        return SyncResult(self.registry, len(self.entries), len(fresh), since is None, len(gone) if since else 0)


def featured_entries() -> list[RegistryEntry]:
    """The entries shipped with the app (``resources/featured.json``), offered without network."""
    data = json.loads(read_resource_text(FEATURED_RESOURCE))
    return [entry_from_wire(item, FEATURED_SOURCE) for item in data["servers"]]


@dataclass(frozen=True)
class _Snapshot:
    """The entries and their search texts, replaced as one object (searches on another thread see
    either the old snapshot or the new one, never half of each)."""

    entries: list[RegistryEntry]
    heads: list[str]
    haystacks: list[str]
    active: list[int]


class RegistryIndex:
    """Entries of every registry, searchable from memory."""

    def __init__(self, entries: list[RegistryEntry] | None = None) -> None:
        self._snapshot = _Snapshot([], [], [], [])
        self.replace(entries or [])

    def replace(self, entries: list[RegistryEntry]) -> None:
        """Use these entries (featured first, then each registry's, in the order given)."""
        entries = list(entries)
        heads = [_head(e) for e in entries]
        hays = [
            f"{head}\n{e.server.name} {e.server.description}".lower() for head, e in zip(heads, entries, strict=True)
        ]
        self._snapshot = _Snapshot(entries, heads, hays, [i for i, e in enumerate(entries) if e.installable])

    def __len__(self) -> int:
        return len(self._snapshot.entries)

    def search(self, query: str, limit: int = 200, *, include_removed: bool = False) -> list[RegistryEntry]:
        """Entries whose name, title or description hold every word of ``query``; short-name or title hits first."""
        snap = self._snapshot
        words = query.lower().split()
        indices = range(len(snap.entries)) if include_removed else snap.active
        hays, heads = snap.haystacks, snap.heads
        if not words:
            return [snap.entries[i] for i in indices[:limit]]
        first_word, others = words[0], words[1:]
        hits = [i for i in indices if first_word in hays[i] and all(w in hays[i] for w in others)]
        first = [i for i in hits if first_word in heads[i]]
        if len(first) < limit:
            first += [i for i in hits if first_word not in heads[i]][: limit - len(first)]
        return [snap.entries[i] for i in first[:limit]]

    def find(self, name: str, source: str | None = None) -> RegistryEntry | None:
        """The entry with that name (from ``source`` if given); registries before featured."""
        entries = self._snapshot.entries
        hits = [e for e in entries if e.server.name == name and (source is None or e.source == source)]
        hits.sort(key=lambda e: e.source == FEATURED_SOURCE)
        return hits[0] if hits else None


def _head(entry: RegistryEntry) -> str:
    """The short name and title, lower-case: hits here rank first."""
    server = entry.server
    return f"{server.name.rsplit('/', 1)[-1]} {server.title or ''}".lower()
