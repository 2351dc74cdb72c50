"""The command line other apps run to start this installation's gateway.

``platform/own_command.py`` finds it (this interpreter with ``-m elftia_desktop.cli``, or the frozen
app's bundled ``elftia-mcp``). ``ELFTIA_DATA_DIR``, when set, is passed on so the gateway reads the
same servers.
"""

from __future__ import annotations

import os

from elftia_desktop.core.paths import DATA_DIR_ENV
from elftia_desktop.platform.own_command import cli_argv


def serve_args(agent: str | None = None, hub: bool = False) -> list[str]:
    """``serve [--agent NAME] [--hub]``."""
    return ["serve", *(["--agent", agent] if agent else []), *(["--hub"] if hub else [])]


def gateway_command(agent: str | None = None, hub: bool = False) -> tuple[str, list[str]]:
    """``(command, args)`` that run ``elftia-mcp serve`` of this installation."""
    command, *args = cli_argv(*serve_args(agent, hub))
    return command, args


def gateway_env() -> dict[str, str]:
    """Environment the entry must set: the data folder override, when this process has one."""
    value = os.environ.get(DATA_DIR_ENV)
    return {DATA_DIR_ENV: value} if value else {}
