"""Where the app keeps its files: the user data folder, or ``ELFTIA_DATA_DIR`` when set."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

DATA_DIR_ENV = "ELFTIA_DATA_DIR"


def data_dir() -> Path:
    """The folder for ``mcp-config.json``, ``agents.json``, notes and runtime files (created)."""
    override = os.environ.get(DATA_DIR_ENV)
    path = Path(override) if override else Path(platformdirs.user_data_dir("elftia", appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path


def config_dir() -> Path:
    """The folder for user-private settings such as the fallback secrets file (created)."""
    override = os.environ.get(DATA_DIR_ENV)
    path = Path(override) if override else Path(platformdirs.user_config_dir("elftia", appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path


def managed_tools_dir() -> Path:
    """``<data dir>/tools``: runtimes the app installed itself (``uv`` ...); not created here."""
    return data_dir() / "tools"


def managed_bin_dir() -> Path:
    """The folder of the commands the app installed; it goes after the system PATH."""
    return managed_tools_dir() / "bin"
