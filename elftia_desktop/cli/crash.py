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
from elftia_desktop.core.secret_detect import redact, secret_kind
from elftia_desktop.core.secrets import looks_secret
from elftia_desktop.core.text_rules import visible

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
    reason = redact(reason, _secret_values(sys.argv[1:]))
    return fail(args, f"'{command}' failed unexpectedly: {_one_line(reason)}; {hint}", EXIT_FAILED)


def _append_to_log(exc: BaseException, command: str) -> Path:
    path = crash_log_path()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    if path.exists() and path.stat().st_size > _LOG_LIMIT:
        os.replace(path, path.with_name(path.name + ".1"))
    stamp = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    argv = redacted_argv(sys.argv[1:])
    text = redact("".join(traceback.format_exception(exc)), _secret_values(sys.argv[1:]))
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    if sys.platform != "win32":
        os.fchmod(fd, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8", errors="replace") as log:
        log.write(f"--- {stamp} elftia-mcp {visible(command)} (argv {argv!r})\n{text}\n")
    return path


def redacted_argv(argv: list[str]) -> list[str]:
    """The command line with the values of secret-looking ``KEY=VALUE`` pairs and tokens as ``***``."""
    secrets = _secret_values(argv)
    return [redact(arg, secrets) for arg in argv]


def _secret_values(argv: list[str]) -> list[str]:
    """Values in ``argv`` that are secret: of a ``NAME=VALUE`` with a secret-looking name, or by shape."""
    values = []
    for arg in argv:
        key, sep, value = arg.partition("=")
        if sep and value and (looks_secret(key) or secret_kind(value)):
            values.append(value)
        elif secret_kind(arg):
            values.append(arg)
    return values


def _one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
