"""The command line of this installation's ``elftia-mcp``, whichever of its programs asks.

From a source or pip install: this interpreter with ``-m elftia_desktop.cli``. In the frozen app
(PyInstaller) the bundled ``elftia-mcp`` executable beside the running one (``elftia-mcp.exe`` on
Windows): the window's own executable starts the window, and a frozen app cannot run ``python -m``.
"""

from __future__ import annotations

import sys
from pathlib import Path

CLI_EXECUTABLE = "elftia-mcp"


def cli_argv(
    *args: str, executable: str | None = None, frozen: bool | None = None, system: str | None = None
) -> list[str]:
    """``elftia-mcp ARGS`` of this installation (``executable``, ``frozen``, ``system``: this process's by default)."""
    running = Path(executable or sys.executable)
    if not (getattr(sys, "frozen", False) if frozen is None else frozen):
        return [str(running), "-m", "elftia_desktop.cli", *args]
    suffix = ".exe" if (system or sys.platform) == "win32" else ""
    cli = running.with_name(CLI_EXECUTABLE + suffix)
    return [str(cli if cli.exists() else running), *args]
