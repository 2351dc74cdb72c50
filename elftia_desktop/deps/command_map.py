"""Which runtime command a server's launch line really needs.

A server record's command may be wrapped: ``cmd /c npx ...`` (Windows configs), ``env A=1 uvx ...``,
``sh -c "npx -y pkg"``, or be the ``{python}`` placeholder of the built-in presets. This module peels
such wrappers off and returns the command to check; ``requirements.runtime_for`` then maps it
(``npm exec`` -> node, ``uvx --from`` -> uv, ``python3.12 -m`` -> python, ``docker run`` -> docker).
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence

from elftia_desktop.deps.requirements import command_name

PYTHON_PLACEHOLDER = "{python}"
"""Stands for the interpreter running the app (``sys.executable``) in built-in presets."""

_SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "fish"}
_MAX_UNWRAP = 6


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text, posix=sys.platform != "win32")
    except ValueError:
        return text.split()


def _after_cmd_exe(args: list[str]) -> list[str]:
    """``cmd /d /s /c "npx -y x"`` -> ``["npx", "-y", "x"]``."""
    rest = list(args)
    while rest and rest[0].startswith("/"):
        flag = rest.pop(0).lower()
        if flag in ("/c", "/k"):
            break
    if len(rest) == 1 and " " in rest[0].strip():
        return _split(rest[0].strip().strip('"'))
    return rest


def _after_shell(args: list[str]) -> list[str] | None:
    """``sh -c "npx -y x"`` / ``bash -lc "..."`` -> the script's words; None if there is no ``-c``."""
    for index, arg in enumerate(args):
        if arg.startswith("-") and not arg.startswith("--") and "c" in arg and index + 1 < len(args):
            words = _split(args[index + 1])
            while words and (words[0] == "exec" or ("=" in words[0] and not words[0].startswith(("-", "/")))):
                words.pop(0)
            return words or None
    return None


def _after_env(args: list[str]) -> list[str]:
    """``env -i A=1 B=2 npx ...`` -> ``["npx", ...]``."""
    rest = list(args)
    while rest and (rest[0].startswith("-") or ("=" in rest[0] and not rest[0].startswith("/"))):
        rest.pop(0)
    return rest


def runtime_command(command: str, args: Sequence[str] = ()) -> str:
    """The command whose runtime a launch line needs, with wrappers peeled off.

    ``{python}`` becomes ``sys.executable``; absolute paths are kept (they are checked as given).
    """
    current, rest = command.strip(), list(args)
    for _ in range(_MAX_UNWRAP):
        if current == PYTHON_PLACEHOLDER:
            return sys.executable
        name = command_name(current)
        if name == "cmd":
            words = _after_cmd_exe(rest)
        elif name in _SHELLS:
            words = _after_shell(rest) or []
        elif name == "env":
            words = _after_env(rest)
        else:
            return current
        if not words:
            return current
        current, rest = words[0], words[1:]
    return current
