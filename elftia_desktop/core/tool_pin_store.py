"""The pinned tool definitions of every trusted server: ``{data dir}/tool-pins.json`` (0600).

Shape ``{"version": 1, "servers": {serverId: {"tools": {name: {"digest", "definition"}},
"instructions": {"digest", "text"} | null, "pending": {name: definition}, "pendingInstructions":
text | null}}}``. ``pending`` holds what a later listing said about the tools held back, so a
review can show the difference without starting the server again. Reads and writes are locked
and atomic; the file is re-read when another process (the CLI, a gateway) changed it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from elftia_desktop.core.atomic_file import FileLock, atomic_write_text
from elftia_desktop.core.errors import ConfigError
from elftia_desktop.core.paths import check_not_world_writable, data_dir

PINS_FILE_NAME = "tool-pins.json"
PINS_VERSION = 1


class PinStore:
    """Pins per server id, as plain JSON-able dicts."""

    def __init__(self, path: Path | None = None, *, what: str = "tool pins") -> None:
        self.path = path if path is not None else data_dir() / PINS_FILE_NAME
        self._what = what
        """What the file holds, for messages (``skill pins``: the same shape keyed by skill)."""
        self._lock = FileLock(self.path.with_name(self.path.name + ".lock"))
        self._stamp: tuple[int, int] | None = None
        self._data: dict[str, Any] = {}

    def _stat(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        return (st.st_mtime_ns, st.st_size)

    def _load(self) -> dict[str, Any]:
        stamp = self._stat()
        if stamp is not None and stamp == self._stamp:
            return self._data
        if stamp is None:
            self._data, self._stamp = {}, None
            return self._data
        check_not_world_writable(self.path, "file")
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"The {self._what} file {self.path} cannot be read: {exc}") from exc
        if not isinstance(data, dict) or data.get("version", 0) > PINS_VERSION:
            raise ConfigError(f"The {self._what} file {self.path} was written by a newer version; left untouched")
        servers = data.get("servers")
        self._data = servers if isinstance(servers, dict) else {}
        self._stamp = stamp
        return self._data

    def get(self, server_id: str) -> dict[str, Any] | None:
        """The pins of one server (a copy), or None when it was never pinned."""
        with self._lock.hold():
            found = self._load().get(server_id)
        return json.loads(json.dumps(found)) if isinstance(found, dict) else None

    def all(self) -> dict[str, dict[str, Any]]:
        """Every server's pins (read-only use)."""
        with self._lock.hold():
            return dict(self._load())

    def put(self, server_id: str, pins: dict[str, Any] | None) -> None:
        """Replace (or with None, forget) the pins of one server."""
        with self._lock.hold():
            servers = dict(self._load())
            if pins is None:
                servers.pop(server_id, None)
            else:
                servers[server_id] = pins
            text = json.dumps({"version": PINS_VERSION, "servers": servers}, ensure_ascii=False, separators=(",", ":"))
            atomic_write_text(self.path, text + "\n", mode=0o600)
            self._data, self._stamp = servers, self._stat()
