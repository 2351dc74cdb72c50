"""The login shell's environment and the one PATH commands are found on (the pool, the Dependencies page, the CLI).

A GUI app started from a desktop menu (or the macOS Dock) inherits a bare ``PATH`` that lacks what
``~/.profile``, ``~/.zprofile``, nvm, asdf or Homebrew add. :func:`login_env` reads the login
shell's environment once (:mod:`elftia_desktop.platform.commands`: which shell per OS, ``-ilc``
then ``-lc``, the two bounded together by :data:`LOGIN_SHELL_TIMEOUT`). The result is cached for
the process; with no login shell (Windows), or when both forms fail, it is a copy of
``os.environ``. The shell runs as an asyncio subprocess in its own session: the loop never
blocks, and concurrent callers on one loop share one run.

:func:`search_path` is the one PATH builder: the login shell's PATH, then this process's, then
the app's managed tools folder (``<data>/tools/bin``, last so that a system runtime wins).
Stdlib only.
"""

from __future__ import annotations

import asyncio
import logging
import os
import weakref
from collections.abc import Mapping
from pathlib import Path

from elftia_desktop.core.paths import DATA_DIR_ENV, managed_tools_dir
from elftia_desktop.platform.commands import LOGIN_SHELL_TIMEOUT, login_shell, read_login_env

log = logging.getLogger(__name__)

_cache: dict[str, str] | None = None
_running: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Future[dict[str, str]]] = (
    weakref.WeakKeyDictionary()
)
"""The run in progress on each loop, which other callers on that loop wait for."""

PASSED_THROUGH = (
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "NODE_EXTRA_CA_CERTS",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
    "LANG",
    "LC_ALL",
    "TMPDIR",
    DATA_DIR_ENV,
)
"""Variables stdio servers inherit besides the SDK's defaults: certificates and proxies (so
``npx``/``uvx`` can download behind a corporate proxy), the locale, and our data-folder override."""


def _cancelling() -> bool:
    """Whether the current task itself was asked to stop (not just something it waited on)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


async def _resolve(limit: float) -> dict[str, str]:
    """The login shell's environment within ``limit`` s in all; else this process's environment."""
    shell = login_shell()
    if shell is not None:
        env = await read_login_env(shell, limit)
        if env is not None:
            return env
        log.info("could not read the login shell %s's environment; using the app's", shell)
    return dict(os.environ)


async def login_env(limit: float = LOGIN_SHELL_TIMEOUT) -> dict[str, str]:
    """The login shell's environment (cached), or a copy of ``os.environ``.

    The first caller on a loop runs the shell itself; callers meanwhile wait for its answer (a
    waiter's cancellation leaves the run alone; a cancelled run kills the shell and the next
    waiter runs it again). No background task outlives its caller.
    """
    global _cache
    while _cache is None:
        loop = asyncio.get_running_loop()
        running = _running.get(loop)
        if running is not None:
            try:
                return await asyncio.shield(running)
            except asyncio.CancelledError:
                if running.cancelled() and not _cancelling():
                    continue  # the run was cancelled, not this caller: run it here
                raise
        answer: asyncio.Future[dict[str, str]] = loop.create_future()
        _running[loop] = answer
        try:
            env = await _resolve(limit)
        except BaseException:
            answer.cancel()
            raise
        finally:
            _running.pop(loop, None)
        _cache = env
        answer.set_result(env)
    return _cache


def use_process_environment() -> None:
    """Take this process's environment as the login one (the CLI, started from the user's shell)."""
    global _cache
    _cache = dict(os.environ)


def reset_cache() -> None:
    """Forget the cached environment (after the user changed their shell setup; tests)."""
    global _cache
    _cache = None
    _running.clear()


def passed_through(env: Mapping[str, str]) -> dict[str, str]:
    """The ``PASSED_THROUGH`` variables of ``env``, then of this process."""
    return {k: v for k in PASSED_THROUGH if (v := env.get(k) or os.environ.get(k))}


def managed_bin_dirs(tools_dir: Path | None = None) -> list[Path]:
    """The folders holding the commands the app installed that exist (``[<tools>/bin]`` or ``[]``)."""
    bin_dir = (tools_dir or managed_tools_dir()) / "bin"
    return [bin_dir] if bin_dir.is_dir() else []


def path_with_managed(base: str, tools_dir: Path | None = None) -> str:
    """``base`` then the managed bin folder (when it exists); empty and repeated entries dropped."""
    parts: list[str] = []
    for entry in [*base.split(os.pathsep), *map(str, managed_bin_dirs(tools_dir))]:
        if entry and entry not in parts:
            parts.append(entry)
    return os.pathsep.join(parts)


def search_path(env: Mapping[str, str], tools_dir: Path | None = None) -> str:
    """The PATH commands are found and started on: ``env``'s (the login shell's), this process's, then managed."""
    return path_with_managed(os.pathsep.join([env.get("PATH", ""), os.environ.get("PATH", "")]), tools_dir)


async def command_search_path(tools_dir: Path | None = None, base: str | None = None) -> str:
    """:func:`search_path` of the login environment; with ``base``, that PATH then the managed folder."""
    if base is not None:
        return path_with_managed(base, tools_dir)
    return search_path(await login_env(), tools_dir)
