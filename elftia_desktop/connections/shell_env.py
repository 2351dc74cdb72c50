"""The login shell's environment, for apps started from a desktop menu with a short PATH.

``login_env()`` runs ``$SHELL -ilc env`` once (at most 5 s), caches the result and falls back
to the process environment when there is no shell, it fails or it takes too long.
``find_command()`` looks a command up on that PATH.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import sys

from elftia_desktop.core.paths import DATA_DIR_ENV, managed_bin_dir

log = logging.getLogger(__name__)

SHELL_ENV_TIMEOUT = 5.0
_MARKER = "__ELFTIA_ENV_START__"
_cache: dict[str, str] | None = None
_lock: asyncio.Lock | None = None


def parse_env_output(text: str) -> dict[str, str]:
    """Parse ``env`` output after our marker; lines without ``=`` continue the previous value."""
    if _MARKER in text:
        text = text.split(_MARKER, 1)[1]
    env: dict[str, str] = {}
    last: str | None = None
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key and key.replace("_", "a").isalnum() and not key[0].isdigit():
            env[key], last = value, key
        elif last is not None:
            env[last] += "\n" + line
    return env


async def _run_login_shell(shell: str, limit: float) -> dict[str, str] | None:
    process = await asyncio.create_subprocess_exec(
        shell,
        "-ilc",
        f"echo {_MARKER}; env",
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        out, _ = await asyncio.wait_for(process.communicate(), limit)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, 9)
        await process.wait()
        log.info("the login shell %s took longer than %.0f s; using the app's environment", shell, limit)
        return None
    if process.returncode != 0:
        log.info("the login shell %s exited with code %s; using the app's environment", shell, process.returncode)
        return None
    env = parse_env_output(out.decode("utf-8", errors="replace"))
    return env if env.get("PATH") else None


async def login_env(limit: float = SHELL_ENV_TIMEOUT) -> dict[str, str]:
    """The login shell's environment (cached), or a copy of ``os.environ``."""
    global _cache, _lock
    if _cache is not None:
        return _cache
    if _lock is None:
        _lock = asyncio.Lock()
    async with _lock:
        if _cache is None:
            env: dict[str, str] | None = None
            shell = os.environ.get("SHELL")
            if sys.platform != "win32" and shell:
                try:
                    env = await _run_login_shell(shell, limit)
                except OSError as exc:
                    log.info("cannot run the login shell %s: %s", shell, exc)
            _cache = env if env is not None else dict(os.environ)
        return _cache


def use_process_environment() -> None:
    """Take this process's environment as the login one (the CLI, started from the user's shell)."""
    global _cache
    _cache = dict(os.environ)


def reset_cache() -> None:
    """Forget the cached environment (tests)."""
    global _cache, _lock
    _cache, _lock = None, None


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


def passed_through(env: dict[str, str]) -> dict[str, str]:
    """The ``PASSED_THROUGH`` variables of ``env``, then of this process."""
    return {k: v for k in PASSED_THROUGH if (v := env.get(k) or os.environ.get(k))}


def search_path(env: dict[str, str]) -> str:
    """The PATH used to find commands: the login shell's, the app's own, then managed tools."""
    parts: list[str] = []
    for source in (env.get("PATH", ""), os.environ.get("PATH", ""), str(managed_bin_dir())):
        for entry in source.split(os.pathsep):
            if entry and entry not in parts:
                parts.append(entry)
    return os.pathsep.join(parts)


def find_command(command: str, path: str) -> str | None:
    """The full path of ``command`` on ``path`` (or itself when it is a path that exists)."""
    if os.sep in command or (os.altsep and os.altsep in command):
        return command if os.path.isfile(command) and os.access(command, os.X_OK) else None
    return shutil.which(command, path=path)
