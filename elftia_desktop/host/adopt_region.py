"""The app's requests in flight, as the host that adopted its pipes keeps them for the shim: shared memory.

When the host that reads an app's pipes goes away (killed, stopped), the shim answers every request
the app sent and the host did not answer with an error. The host keeps those ids in a small region
the shim created and passed with the pipes, so the call path costs no syscall and no wakeup: a write
to memory per request start and end. The region holds a generation word and two slots; a writer
fills the slot the generation does not point at, then moves the generation to it, so a write torn by
SIGKILL leaves the previous slot valid. Each slot holds the ids as a JSON list. Standard library only.
"""

from __future__ import annotations

import json
import mmap
import os
import struct
from pathlib import Path
from typing import Any

SLOT = 32 * 1024
"""Bytes of one slot (a JSON list of ids; thousands of ids fit)."""
_GENERATION = struct.Struct("<Q")
_LENGTH = struct.Struct("<I")
SIZE = _GENERATION.size + 2 * (_LENGTH.size + SLOT)


def create_fd(folder: Path | None = None) -> int:
    """A new zeroed region's file descriptor: a memfd on Linux, else an unlinked file in ``folder``."""
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("elftia-in-flight", os.MFD_CLOEXEC)
    else:  # pragma: no cover - other Unixes
        import tempfile  # only here: the shim starts fast

        with tempfile.TemporaryFile(dir=folder) as handle:  # unlinked at once
            fd = os.dup(handle.fileno())
    os.ftruncate(fd, SIZE)
    return fd


class InFlight:
    """The region mapped into this process (``fd`` stays the caller's to close)."""

    def __init__(self, fd: int) -> None:
        self._map = mmap.mmap(fd, SIZE)
        self._ids: dict[str, Any] = {}

    def _slot(self, generation: int) -> int:
        return _GENERATION.size + (generation % 2) * (_LENGTH.size + SLOT)

    def add(self, request_id: Any) -> None:
        """Note a request of the app the host took."""
        self._ids[json.dumps(request_id)] = request_id
        self._publish()

    def remove(self, request_id: Any) -> None:
        """Note that a request was answered (or cancelled by the app)."""
        if self._ids.pop(json.dumps(request_id), None) is not None:
            self._publish()

    def _publish(self) -> None:
        ids = list(self._ids.values())
        data = json.dumps(ids, separators=(",", ":")).encode()
        while len(data) > SLOT:  # more ids than fit: the newest are left out
            ids = ids[: len(ids) // 2]
            data = json.dumps(ids, separators=(",", ":")).encode()
        generation = _GENERATION.unpack_from(self._map, 0)[0] + 1
        slot = self._slot(generation)
        _LENGTH.pack_into(self._map, slot, len(data))
        self._map[slot + _LENGTH.size : slot + _LENGTH.size + len(data)] = data
        _GENERATION.pack_into(self._map, 0, generation)

    def read(self) -> list[Any]:
        """The ids of the last whole write (none before the first)."""
        generation = _GENERATION.unpack_from(self._map, 0)[0]
        if generation == 0:
            return []
        slot = self._slot(generation)
        (length,) = _LENGTH.unpack_from(self._map, slot)
        try:
            ids = json.loads(self._map[slot + _LENGTH.size : slot + _LENGTH.size + min(length, SLOT)])
        except ValueError:
            return []
        return ids if isinstance(ids, list) else []

    def close(self) -> None:
        """Unmap the region."""
        self._map.close()
