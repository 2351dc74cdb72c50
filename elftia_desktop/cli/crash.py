"""What the CLI does with an error nobody foresaw: one line for the person, the traceback in a log.

``elftia-mcp --debug …`` prints the traceback instead. The log is
``<data dir>/logs/elftia-mcp.log``, kept under about a megabyte (one older copy, ``.1``).
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import traceback
from pathlib import Path

from elftia_desktop.cli.output import EXIT_FAILED, fail

_LOG_LIMIT = 1024 * 1024


def crash_log_path() -> Path:
    """Where unexpected errors of the CLI are written."""
    from elftia_desktop.core.paths import data_dir

    return data_dir() / "logs" / "elftia-mcp.log"


def report_crash(args: argparse.Namespace, exc: BaseException, debug: bool) -> int:
    """Log ``exc`` with its traceback, say in one line what failed and where the log is; exit 1."""
    if debug:
        traceback.print_exception(exc, file=sys.stderr)
        return EXIT_FAILED
    command = getattr(args, "command", None) or "the command"
    reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    try:
        where = _append_to_log(exc, command)
        hint = f"details are in {where} (or run again with --debug)"
    except OSError as log_error:
        hint = f"the log could not be written ({log_error.strerror}); run again with --debug to see the details"
    return fail(args, f"'{command}' failed unexpectedly: {_one_line(reason)}; {hint}", EXIT_FAILED)


def _append_to_log(exc: BaseException, command: str) -> Path:
    path = crash_log_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.stat().st_size > _LOG_LIMIT:
        os.replace(path, path.with_name(path.name + ".1"))
    stamp = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    text = "".join(traceback.format_exception(exc))
    with path.open("a", encoding="utf-8", errors="replace") as log:
        log.write(f"--- {stamp} elftia-mcp {command} (argv {sys.argv[1:]!r})\n{text}\n")
    return path


def _one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
