"""How to start a built-in server: ``python -m MODULE``, or the frozen app's own executable with a flag.

A frozen (PyInstaller) app cannot run ``python -m``; it re-runs itself as
``<app> --run-builtin-server NAME``, and the app's entry point calls
:func:`maybe_run_builtin_server` before Qt is imported, so the child serves MCP on stdio and never
opens a window.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from elftia_desktop.core.paths import DATA_DIR_ENV

RUN_FLAG = "--run-builtin-server"


@dataclass(frozen=True)
class BuiltinServer:
    """One built-in server: its name, module and what it offers."""

    name: str
    module: str
    description: str


BUILTIN_SERVERS: dict[str, BuiltinServer] = {
    s.name: s
    for s in (
        BuiltinServer(
            "clock",
            "elftia_desktop.builtin_servers.clock",
            "Current time in any time zone, conversions between zones, date arithmetic.",
        ),
        BuiltinServer(
            "notes",
            "elftia_desktop.builtin_servers.notes",
            "Notes stored on this computer: create, read, update, delete, search, list.",
        ),
    )
}


def _lookup(name: str) -> BuiltinServer:
    try:
        return BUILTIN_SERVERS[name]
    except KeyError:
        known = ", ".join(sorted(BUILTIN_SERVERS))
        raise ValueError(f"no built-in server named {name!r}; the built-in servers are: {known}") from None


def builtin_command(name: str) -> tuple[str, list[str]]:
    """The command and arguments that start the built-in server ``name`` on stdio."""
    server = _lookup(name)
    if getattr(sys, "frozen", False):
        return sys.executable, [RUN_FLAG, server.name]
    return sys.executable, ["-m", server.module]


def builtin_env() -> dict[str, str]:
    """Environment a built-in server needs beyond the SDK's safe defaults (the data folder override)."""
    value = os.environ.get(DATA_DIR_ENV)
    return {DATA_DIR_ENV: value} if value else {}


def _requested(args: list[str]) -> str | None:
    """The server name ``args`` asks for, or None when they are the app's own arguments."""
    if args and args[0] == RUN_FLAG:
        if len(args) < 2:
            sys.stderr.write(f"{RUN_FLAG} needs a server name: one of {', '.join(sorted(BUILTIN_SERVERS))}\n")
            raise SystemExit(2)
        return args[1]
    # ``<app> -m elftia_desktop.builtin_servers.NAME``: a config written for ``python -m`` run by a frozen app.
    if len(args) >= 2 and args[0] == "-m":
        for server in BUILTIN_SERVERS.values():
            if args[1] == server.module:
                return server.name
    return None


def maybe_run_builtin_server(argv: Sequence[str]) -> bool:
    """Serve a built-in server when ``argv`` (``sys.argv``) asks for one; ``False`` otherwise.

    Recognises ``[prog, "--run-builtin-server", NAME]`` and, for configs written for ``python -m``,
    ``[prog, "-m", "elftia_desktop.builtin_servers.NAME"]``. Returns ``True`` after the server
    stopped; the caller then exits instead of starting the GUI. An unknown or missing name exits
    with code 2 and a message on stderr.
    """
    name = _requested(list(argv[1:]))
    if name is None:
        return False
    try:
        server = _lookup(name)
    except ValueError as exc:
        sys.stderr.write(f"{exc}\n")
        raise SystemExit(2) from None
    module = importlib.import_module(server.module)
    module.main()
    return True
