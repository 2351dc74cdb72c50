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


def maybe_run_builtin_server(argv: Sequence[str]) -> bool:
    """Serve a built-in server when ``argv`` (``sys.argv``) asks for one; ``False`` otherwise.

    Recognises ``[prog, "--run-builtin-server", NAME]``. Returns ``True`` after the server
    stopped; the caller then exits instead of starting the GUI. An unknown or missing name
    exits with code 2 and a message on stderr.
    """
    args = list(argv[1:])
    if not args or args[0] != RUN_FLAG:
        return False
    if len(args) < 2:
        sys.stderr.write(f"{RUN_FLAG} needs a server name: one of {', '.join(sorted(BUILTIN_SERVERS))}\n")
        raise SystemExit(2)
    try:
        server = _lookup(args[1])
    except ValueError as exc:
        sys.stderr.write(f"{exc}\n")
        raise SystemExit(2) from None
    module = importlib.import_module(server.module)
    module.main()
    return True
