"""Where the host of a data folder is found: its claim, in the data folder itself.

One host per data folder, whoever starts it: the claim lives with the data folder, so commands
started with different ``TMPDIR`` or ``XDG_RUNTIME_DIR`` (a terminal, a desktop launcher, an app
that gives its servers a private ``TMPDIR``) find the same host. The claim is two files:

* ``host.lock``: the host holds an exclusive lock on it while it runs (``platform/lock.py``; the
  OS lets go when the process dies, so a killed host never blocks the next one);
* ``host.json``: ``{"pid": N, "endpoint": {...}}``, where the host listens (``platform/endpoint.py``),
  written (readable by the user only) once it listens and removed when it stops.

The host's own endpoint is a socket in the runtime folder of the environment it started in
(``platform/runtime.py``), named by a short digest of the data folder's path. Its log is
``host.log`` in the data folder.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from elftia_desktop.core.paths import data_dir
from elftia_desktop.platform.runtime import runtime_folder, write_private

NO_DAEMON_ENV = "ELFTIA_NO_DAEMON"
"""Set to 1: gateways and CLI commands never attach to a host (like ``--no-daemon``)."""


@dataclass(frozen=True)
class HostLocation:
    """The files of one data folder's host."""

    data_dir: Path
    lock: Path
    claim: Path
    log: Path

    @property
    def socket(self) -> Path:
        """Where a host started in this environment listens (a Unix socket; unused on Windows)."""
        digest = hashlib.sha256(str(self.data_dir).encode()).hexdigest()[:16]
        return runtime_folder() / f"host-{digest}.sock"

    def read_claim(self) -> dict[str, Any] | None:
        """The running host's claim (``pid``, ``endpoint``); None when no host wrote one (or it is unreadable)."""
        try:
            claim = json.loads(self.claim.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(claim, dict) or not isinstance(claim.get("endpoint"), dict):
            return None
        return claim

    def write_claim(self, endpoint: dict[str, str]) -> None:
        """Say where this process's host listens."""
        write_private(self.claim, json.dumps({"pid": os.getpid(), "endpoint": endpoint}))

    def remove_claim(self) -> None:
        """Take this process's claim back (a claim another host wrote since stays)."""
        claim = self.read_claim()
        if claim is not None and claim.get("pid") == os.getpid():
            self.claim.unlink(missing_ok=True)


def attach_disabled() -> bool:
    """Whether ``ELFTIA_NO_DAEMON`` asks every command to run its own pool."""
    return os.environ.get(NO_DAEMON_ENV, "").strip().lower() not in ("", "0", "false", "no")


def host_location(folder: Path | None = None) -> HostLocation:
    """The claim, lock and log of the host of ``folder`` (default: this process's data folder)."""
    data = (folder if folder is not None else data_dir()).resolve()
    return HostLocation(data_dir=data, lock=data / "host.lock", claim=data / "host.json", log=data / "host.log")
