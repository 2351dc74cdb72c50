"""``elftia-mcp`` in the test's own process: ``elftia_desktop.cli.main(argv)`` with its own streams.

``run_cli`` answers like ``subprocess.run(..., capture_output=True, text=True)`` (``returncode``,
``stdout``, ``stderr``) without starting Python: stdin, stdout and stderr are in-memory text, the
environment changes only for the call, and the keyring is the one a command started from the
suite would get (``PYTHON_KEYRING_BACKEND``: the 0600 fallback file). Commands that stay running
(``serve``, ``daemon``) and tests of the entry point, exit codes from the OS and signals keep a
real subprocess.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import keyring
import keyring.core

from elftia_desktop.cli import main
from elftia_desktop.core.login_env import reset_cache


@dataclass(frozen=True)
class CliResult:
    """What one command did: its exit code and everything it wrote."""

    returncode: int
    stdout: str
    stderr: str
    args: tuple[str, ...] = ()


class _Terminal(io.TextIOWrapper):
    """A text stream over bytes that says whether it is a terminal (never, as under ``capture_output``)."""

    def isatty(self) -> bool:
        """Not a terminal: commands take their non-interactive path."""
        return False


def run_cli(
    *args: str | Path,
    stdin: str | bytes | None = None,
    env: Mapping[str, str | None] | None = None,
    data_dir: Path | None = None,
    cwd: Path | None = None,
) -> CliResult:
    """Run ``elftia-mcp ARGS`` in this process; ``env`` is merged into the environment for the call (None unsets).

    ``data_dir`` sets ``ELFTIA_DATA_DIR`` (the suite already gives each test its own); ``cwd`` is the
    working folder for the call. An exit
    through ``SystemExit`` (argparse's usage errors) becomes the exit code, as in a subprocess.
    """
    argv = [str(a) for a in args]
    changes: dict[str, str | None] = dict(env or {})
    if data_dir is not None:
        changes["ELFTIA_DATA_DIR"] = str(data_dir)
    out, err = _Terminal(io.BytesIO(), encoding="utf-8"), _Terminal(io.BytesIO(), encoding="utf-8")
    raw = stdin.encode() if isinstance(stdin, str) else stdin or b""
    source = _Terminal(io.BytesIO(raw), encoding="utf-8")
    folder = contextlib.chdir(cwd) if cwd is not None else contextlib.nullcontext()
    with folder, _environment(changes), _command_keyring(), _streams(source, out, err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return CliResult(code, _text(out), _text(err), tuple(argv))


def _text(stream: io.TextIOWrapper) -> str:
    """Everything written to ``stream``."""
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8")


@contextlib.contextmanager
def _streams(stdin: io.TextIOWrapper, stdout: io.TextIOWrapper, stderr: io.TextIOWrapper) -> Iterator[None]:
    """``sys.stdin``/``stdout``/``stderr`` replaced for the block."""
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
    try:
        yield
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved


@contextlib.contextmanager
def _environment(changes: Mapping[str, str | None]) -> Iterator[None]:
    """``os.environ`` with ``changes`` (None: unset) for the block, then all of it as it was (what a command
    sets in its own environment ends with it, as with a process of its own); the login-environment cache
    forgotten after it."""
    saved = dict(os.environ)
    for name, value in changes.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)
        reset_cache()


@contextlib.contextmanager
def _command_keyring() -> Iterator[None]:
    """The keyring a command started with the test's environment would load (the suite: none, so the file)."""
    previous = keyring.get_keyring()
    name = os.environ.get("PYTHON_KEYRING_BACKEND")
    keyring.set_keyring(keyring.core.load_keyring(name) if name else previous)
    try:
        yield
    finally:
        keyring.set_keyring(previous)
