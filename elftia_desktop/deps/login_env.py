"""The ``PATH`` of the user's login shell, found without blocking and at most once.

A GUI app started from a desktop menu (or the macOS Dock) inherits a bare ``PATH`` that lacks
what ``~/.profile``, ``~/.zprofile``, nvm, asdf or Homebrew add. Servers are started with the
login shell's ``PATH`` instead: ``$SHELL -ilc env`` (interactive, because many setups only
extend ``PATH`` in ``~/.bashrc`` / ``~/.zshrc``), or ``$SHELL -lc env`` where the interactive
form fails, each bounded by a timeout. The result is cached for the process; when there is no
``$SHELL`` (Windows) or both forms fail, ``os.environ["PATH"]`` is used.

This module is Qt-free and needs only ``deps.process``, so the connection pool may reuse it.
"""

from __future__ import annotations

import logging
import os
import sys

from elftia_desktop.deps.process import run_capture

log = logging.getLogger(__name__)

LOGIN_SHELL_TIMEOUT = 5.0
"""Seconds one shell start may take before it is killed."""

_MARK = "__ELFTIA_ENV_7f3a__"
_cached: str | None = None


def _process_path() -> str:
    return os.environ.get("PATH", os.defpath)


def clear_cache() -> None:
    """Forget the cached value (after the user changed their shell setup)."""
    global _cached
    _cached = None


async def login_shell_path(limit: float = LOGIN_SHELL_TIMEOUT) -> str:
    """The login shell's ``PATH``; ``os.environ["PATH"]`` where it cannot be found. Cached."""
    global _cached
    if _cached is not None:
        return _cached
    path = await _resolve(limit)
    _cached = path
    return path


async def _resolve(limit: float) -> str:
    shell = os.environ.get("SHELL")
    if sys.platform == "win32" or not shell or not os.path.isabs(shell):
        return _process_path()
    for flags in ("-ilc", "-lc"):
        env = await read_shell_env(shell, flags, limit)
        path = (env or {}).get("PATH")
        if path:
            return path
    log.info("could not read PATH from login shell %s; using this process's PATH", shell)
    return _process_path()


async def read_shell_env(shell: str, flags: str, limit: float = LOGIN_SHELL_TIMEOUT) -> dict[str, str] | None:
    """The environment ``shell flags 'env'`` prints, or None if it fails or takes too long.

    The shell runs in its own session with no stdin, so an interactive shell cannot grab the
    terminal; markers around ``env`` skip whatever its start-up files print.
    """
    script = f"echo {_MARK}; env; echo {_MARK}"
    try:
        code, out = await run_capture([shell, flags, script], limit, merge_stderr=False)
    except TimeoutError:  # before OSError: it is a subclass
        log.info("%s %s took longer than %.0f s", shell, flags, limit)
        return None
    except OSError as exc:
        log.info("cannot start %s: %s", shell, exc)
        return None
    return _parse_env(out) if code == 0 else None


def _parse_env(text: str) -> dict[str, str] | None:
    parts = text.split(_MARK)
    if len(parts) < 3:
        return None
    env: dict[str, str] = {}
    for line in parts[1].splitlines():
        key, sep, value = line.partition("=")
        if sep and key.replace("_", "a").isalnum() and key not in env:
            env[key] = value
    return env
