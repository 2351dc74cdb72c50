"""The command line other apps run to start this installation's gateway.

From a source or pip install: this interpreter with ``-m elftia_desktop.cli serve``. In the frozen
app (PyInstaller), the bundled ``elftia-mcp`` executable next to the running one (a frozen app
cannot run ``python -m``). ``ELFTIA_DATA_DIR``, when set, is passed on so the gateway reads the
same servers.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from elftia_desktop.core.paths import DATA_DIR_ENV

CLI_EXECUTABLE = "elftia-mcp"


def serve_args(agent: str | None = None, hub: bool = False) -> list[str]:
    """``serve [--agent NAME] [--hub]``."""
    return ["serve", *(["--agent", agent] if agent else []), *(["--hub"] if hub else [])]


def gateway_command(agent: str | None = None, hub: bool = False) -> tuple[str, list[str]]:
    """``(command, args)`` that run ``elftia-mcp serve`` of this installation."""
    if getattr(sys, "frozen", False):
        running = Path(sys.executable)
        cli = running.with_name(CLI_EXECUTABLE + (".exe" if sys.platform == "win32" else ""))
        return str(cli if cli.exists() else running), serve_args(agent, hub)
    return sys.executable, ["-m", "elftia_desktop.cli", *serve_args(agent, hub)]


def gateway_env() -> dict[str, str]:
    """Environment the entry must set: the data folder override, when this process has one."""
    value = os.environ.get(DATA_DIR_ENV)
    return {DATA_DIR_ENV: value} if value else {}
