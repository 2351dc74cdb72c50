"""Whether this process runs with the superuser's rights (POSIX root; never on Windows)."""

from __future__ import annotations

import os


def is_root() -> bool:
    """True when the effective user is root (POSIX); False on Windows, which has no such user id."""
    geteuid = getattr(os, "geteuid", None)
    return geteuid is not None and geteuid() == 0
