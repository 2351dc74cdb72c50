"""This installation's ``elftia-mcp`` command line, from a source install and from the frozen app's two programs."""

from __future__ import annotations

import sys
from pathlib import Path

from elftia_desktop.platform.own_command import cli_argv


def test_a_source_install_runs_the_cli_module_with_this_interpreter() -> None:
    assert cli_argv("daemon", "run", frozen=False) == [sys.executable, "-m", "elftia_desktop.cli", "daemon", "run"]


def test_the_frozen_window_starts_the_bundled_cli_not_itself(tmp_path: Path) -> None:
    for system, suffix in (("linux", ""), ("darwin", ""), ("win32", ".exe")):
        folder = tmp_path / system
        folder.mkdir()
        window = folder / f"elftia-desktop{suffix}"
        cli = folder / f"elftia-mcp{suffix}"
        window.touch()
        cli.touch()
        # the window handing its pool to a daemon on quit ran "elftia-desktop daemon run": a second window
        assert cli_argv("daemon", "run", executable=str(window), frozen=True, system=system) == [
            str(cli),
            "daemon",
            "run",
        ]
        # the frozen CLI itself
        assert cli_argv("serve", executable=str(cli), frozen=True, system=system) == [str(cli), "serve"]


def test_a_frozen_program_without_the_cli_beside_it_runs_itself(tmp_path: Path) -> None:
    lone = tmp_path / "elftia-desktop"
    lone.touch()
    assert cli_argv("serve", executable=str(lone), frozen=True, system="linux") == [str(lone), "serve"]
