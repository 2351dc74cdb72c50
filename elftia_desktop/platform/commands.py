"""Finding a command on a PATH, and reading the login shell's environment, per OS.

One lookup for the stdio start, the dependency checker and the installer, so that what the
Dependencies page calls "installed" is what a server starts with:

* **Windows**: a bare ``npx`` is looked up as ``npx.com``, ``npx.exe``, ``npx.bat``, ``npx.cmd``
  (the order of ``%PATHEXT%``); the folders of ``PATH`` are separated by ``;``. A ``.cmd``/``.bat``
  launcher found this way is started as is through the SDK's Windows spawn (``CreateProcess``
  runs batch files through ``cmd.exe``), see :mod:`elftia_desktop.platform.processes`.
* **POSIX** (Linux, macOS): the name as given, only when it is an executable file.
* **Login shell**: an app started from the Dock, Finder or a desktop menu lacks what the user's
  shell start-up files add to ``PATH`` (nvm, Homebrew, asdf: the "spawn npx ENOENT" problem).
  :func:`login_shell` names the shell to ask (``$SHELL``; ``/bin/zsh`` on macOS without it; none
  on Windows, where ``$SHELL`` may be Git Bash's and the registry PATH is already inherited) and
  :func:`read_shell_env` runs it once, bounded, in its own session, killing its whole group on
  timeout. The caching lives in :mod:`elftia_desktop.core.login_env`.

Every choice takes a :class:`CommandHost` (the OS as a ``sys.platform`` value and the environment),
so the Windows and macOS branches are tested on any OS with a fake PATH folder.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from elftia_desktop.platform.groups import is_windows, kill_group, spawn_options

log = logging.getLogger(__name__)

DEFAULT_PATHEXT = ".COM;.EXE;.BAT;.CMD"
"""What Windows tries after a bare command name when ``%PATHEXT%`` is not set."""
MACOS_DEFAULT_SHELL = "/bin/zsh"
"""The login shell of a macOS account since 10.15, for an app started without ``$SHELL``."""
LOGIN_SHELL_TIMEOUT = 5.0
"""Seconds reading the login shell's environment may take in all (both forms together)."""
SHELL_FLAGS = ("-ilc", "-lc")
"""Interactive login first (many setups extend ``PATH`` only in ``~/.zshrc`` / ``~/.bashrc``), then login."""
_MARK = "__ELFTIA_ENV_7f3a__"


@dataclass(frozen=True)
class CommandHost:
    """The facts a command lookup depends on: the OS (``linux``, ``darwin``, ``win32``) and its environment."""

    system: str
    env: Mapping[str, str]

    @classmethod
    def current(cls) -> CommandHost:
        """This machine: ``sys.platform`` and ``os.environ``."""
        return cls(sys.platform, os.environ)

    @property
    def windows(self) -> bool:
        """Whether the host is Windows."""
        return is_windows(self.system)

    @property
    def path_separator(self) -> str:
        """What separates the folders of ``PATH``: ``;`` on Windows, ``:`` elsewhere."""
        return ";" if self.windows else ":"

    def suffixes(self) -> list[str]:
        """The extensions tried after a bare name, lower case (Windows' ``%PATHEXT%``); ``[""]`` on POSIX."""
        if not self.windows:
            return [""]
        listed = (self.env.get("PATHEXT") or DEFAULT_PATHEXT).split(";")
        return list(dict.fromkeys(ext.lower() for ext in listed if ext.startswith(".")))


def _has_separator(command: str, host: CommandHost) -> bool:
    """Whether ``command`` is a path rather than a name to look up (``\\`` counts on Windows)."""
    return "/" in command or (host.windows and ("\\" in command or ":" in command))


def candidate_names(command: str, host: CommandHost) -> list[str]:
    """The file names ``command`` may be: ``npx`` -> ``npx.com`` ... ``npx.cmd`` on Windows; as is on POSIX.

    A name that already ends in one of the extensions (``npx.cmd``) is tried as is first.
    """
    if not host.windows:
        return [command]
    suffixes = host.suffixes()
    given = [command] if any(command.lower().endswith(ext) for ext in suffixes) else []
    return given + [command + ext for ext in suffixes]


def _runnable(path: str, host: CommandHost) -> bool:
    """A file that can be started: any file on Windows (the extension decides), an executable one on POSIX."""
    return os.path.isfile(path) and (host.windows or os.access(path, os.X_OK))


def find_command(command: str, path: str | None = None, host: CommandHost | None = None) -> str | None:
    """The full path of ``command`` on ``path`` (folders in ``host``'s separator; None: its ``PATH``), or None.

    A command given as a path is checked where it is (with the extensions on Windows). Empty
    PATH entries are skipped (POSIX would read them as the current folder; we never do).
    """
    host = host or CommandHost.current()
    names = candidate_names(command, host)
    if _has_separator(command, host):
        return next((name for name in names if _runnable(name, host)), None)
    search = host.env.get("PATH", "") if path is None else path
    for folder in search.split(host.path_separator):
        if not folder:
            continue
        for name in names:
            full = os.path.join(folder, name)
            if _runnable(full, host):
                return full
    return None


def is_batch_launcher(path: str) -> bool:
    """Whether ``path`` is a Windows ``.cmd``/``.bat`` script (``npx.cmd``), which ``cmd.exe`` runs."""
    return Path(path).suffix.lower() in (".cmd", ".bat")


def login_shell(host: CommandHost | None = None) -> str | None:
    """The shell whose login environment holds the user's PATH; None on Windows (or no usable shell)."""
    host = host or CommandHost.current()
    if host.windows:
        return None
    shell = host.env.get("SHELL", "")
    if os.path.isabs(shell):
        return shell
    return MACOS_DEFAULT_SHELL if host.system == "darwin" else None


def parse_env_output(text: str) -> dict[str, str] | None:
    """The variables ``env`` printed between our two markers (None when the markers are missing).

    Whatever the shell's start-up files print around them is skipped; a line without ``=``
    continues the previous value (a multi-line value).
    """
    parts = text.split(_MARK)
    if len(parts) < 3:
        return None
    env: dict[str, str] = {}
    last: str | None = None
    for line in parts[1].strip("\n").splitlines():
        key, sep, value = line.partition("=")
        if sep and key and key.replace("_", "a").isalnum() and not key[0].isdigit():
            env[key], last = value, key
        elif last is not None:
            env[last] += "\n" + line
    return env


async def read_shell_env(shell: str, flags: str, limit: float = LOGIN_SHELL_TIMEOUT) -> dict[str, str] | None:
    """The environment ``shell flags 'env'`` prints, or None if it fails, is not found or takes too long.

    The shell runs in its own session with no stdin, so an interactive shell cannot grab the
    terminal; on timeout or cancellation its whole process group is killed.
    """
    try:
        process = await asyncio.create_subprocess_exec(
            shell,
            flags,
            f"echo {_MARK}; env; echo {_MARK}",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            **spawn_options(),
        )
    except OSError as exc:
        log.info("cannot start %s: %s", shell, exc)
        return None
    try:
        out, _ = await asyncio.wait_for(process.communicate(), limit)
    except TimeoutError:
        kill_group(process.pid)
        await process.wait()
        log.info("%s %s took longer than %.1f s", shell, flags, limit)
        return None
    except BaseException:  # cancelled, or the loop is going away: kill without awaiting, then let it through
        kill_group(process.pid)
        raise
    if process.returncode != 0:
        log.info("%s %s exited with code %s", shell, flags, process.returncode)
        return None
    return parse_env_output(out.decode("utf-8", errors="replace"))


async def read_login_env(shell: str, limit: float = LOGIN_SHELL_TIMEOUT) -> dict[str, str] | None:
    """``shell``'s login environment (``-ilc``, then ``-lc``) within ``limit`` s in all; None without a PATH."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    for flags in SHELL_FLAGS:
        remaining = deadline - loop.time()
        if remaining <= 0:
            break
        env = await read_shell_env(shell, flags, remaining)
        if env and env.get("PATH"):
            return env
    return None
