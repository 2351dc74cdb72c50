"""Changing another app's config file safely: where it is, a backup first, an atomic write.

Used by the Export page ("write into the app's config") and by ``gateway install|uninstall``, so
both find the same file and leave the same kind of backup (``<name>.elftia-backup-<time>``).
"""

from __future__ import annotations

import hashlib
import stat
import time
from pathlib import Path

from elftia_desktop.core.atomic_file import atomic_write_text
from elftia_desktop.core.errors import ConfigError
from elftia_desktop.integrations.detector import Environment, candidate_locations, read_config_text

NEW_FILE_MODE = 0o600
"""Permissions of a config file we create (an existing file keeps its own)."""


def user_config_path(app_id: str, machine: Environment | None = None) -> Path:
    """The app's user-level config file: the first that exists, else where the app looks first."""
    locations = [loc for loc in candidate_locations(app_id, machine or Environment.current()) if loc.scope == "user"]
    existing = [loc.path for loc in locations if loc.path.is_file()]
    return existing[0] if existing else locations[0].path


def read_existing(path: Path) -> str | None:
    """The file's text through the shared JSON door (UTF-8, bounded); None when there is no file."""
    try:
        return read_config_text(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


def digest(text: str | None) -> str:
    """A fingerprint of a file's text (``None``: no file), to notice a change between plan and write."""
    return hashlib.sha256((text if text is not None else "\0missing").encode()).hexdigest()


def backup_path(path: Path) -> Path:
    """Where the file is copied before it is changed."""
    return path.with_name(f"{path.name}.elftia-backup-{time.strftime('%Y%m%d-%H%M%S')}")


def write_with_backup(path: Path, after: str, expected: str) -> Path | None:
    """Back the file up, then write ``after`` atomically (same permissions); returns the backup.

    ``expected`` is the :func:`digest` of the text the change was planned on: when the file
    changed since, nothing is written (``ConfigError``). A symlink (a dotfiles checkout) is kept:
    its target is written atomically, the backup goes beside the link.
    """
    target = path.resolve() if path.is_symlink() else path
    before = read_existing(target)
    if digest(before) != expected:
        raise ConfigError(f"{path} changed since the diff was shown; nothing was written. Look at the new diff.")
    mode, backup = NEW_FILE_MODE, None
    if before is not None:
        mode = stat.S_IMODE(target.stat().st_mode)
        backup = backup_path(path)
        atomic_write_text(backup, before, mode=mode & 0o600 or 0o600)
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(target, after, mode=mode)
    return backup
