"""Printing for the CLI: aligned tables for people, ``--json`` for scripts, errors on stderr."""

from __future__ import annotations

import argparse
import json
import sys
import unicodedata
from collections.abc import Coroutine, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from elftia_desktop.core.models import McpActionResult

from elftia_desktop.core.text_rules import quoted, visible

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    """Add the common ``--json`` flag."""
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")


def print_json(data: Any) -> None:
    """Print ``data`` as indented JSON."""
    print(json.dumps(data, indent=2, ensure_ascii=False, default=str))


EMOJI_STYLE = "\ufe0f"
"""The variation selector that asks for the emoji (two-column) form of the character before it."""


def display_width(text: str) -> int:
    """The columns ``text`` takes on a terminal: wide (CJK, emoji) characters two, combining marks none."""
    width = 0
    previous = ""
    for char in text:
        if char == EMOJI_STYLE:
            width += 1 if previous and unicodedata.east_asian_width(previous) not in ("W", "F") else 0
        elif not unicodedata.combining(char):
            width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
        previous = char
    return width


def print_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """Print rows as an aligned text table; control, bidi and zero-width characters are shown escaped.

    Columns are padded by what the terminal shows (:func:`display_width`), so names with emoji or CJK
    characters keep the columns after them aligned.
    """
    cells = [[str(h) for h in headers]] + [["" if c is None else visible(str(c)) for c in row] for row in rows]
    widths = [max(display_width(row[i]) for row in cells) for i in range(len(headers))]
    for index, row in enumerate(cells):
        padded = (cell + " " * (widths[i] - display_width(cell)) for i, cell in enumerate(row))
        print("  ".join(padded).rstrip())
        if index == 0:
            print("  ".join("-" * w for w in widths))


def shorten_for_terminal(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters with "…" on a terminal; whole when stdout is a pipe or a file."""
    if len(text) <= limit or not sys.stdout.isatty():
        return text
    return text[: limit - 1] + "…"


def fail(args: argparse.Namespace, message: str, code: int = EXIT_FAILED, **details: Any) -> int:
    """Report an error (JSON on stdout with ``--json``, text on stderr) and return ``code``.

    A ``details`` keyword (the error's long part) is printed on the lines after the message."""
    if getattr(args, "json", False):
        print_json({"success": False, "error": message} | {k: v for k, v in details.items() if v is not None})
    else:
        print(f"error: {message}", file=sys.stderr)
        if details.get("details"):
            print(details["details"], file=sys.stderr)  # the long part the message leaves out
    return code


def key_values(items: list[str], flag: str, shape: str = "NAME=VALUE") -> dict[str, str]:
    """``NAME=VALUE`` options as a dict; a malformed one is a ``JsonInputError`` naming ``flag`` (exit 2)."""
    from elftia_desktop.core.errors import JsonInputError

    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise JsonInputError(f"{flag}: expected {shape}, got {quoted(item)}")
        out[key.strip()] = value
    return out


def refused(args: argparse.Namespace, result: McpActionResult) -> int:
    """Report an action that did not happen: its reason; exit 2 when the request was at fault, else 1."""
    message = result.reason or result.error or "the action failed"
    return fail(args, message, EXIT_BAD_INPUT if result.bad_input else EXIT_FAILED)


def acted(action: Coroutine[Any, Any, McpActionResult]) -> McpActionResult:
    """Run an application action (``application.servers`` ...) to its result."""
    import asyncio

    return asyncio.run(action)


def warn(message: str) -> None:
    """A warning on stderr that never disturbs ``--json`` output."""
    print(f"warning: {message}", file=sys.stderr)


def suggest(*words: str) -> str:
    """An ``elftia-mcp`` command line to copy: each word shell-quoted only when the shell needs it.

    Hidden characters are escaped first, so a server's name cannot drive the terminal.
    """
    from shlex import quote

    return " ".join(["elftia-mcp", *(quote(visible(word)) for word in words)])


def warn_held(server: str, names: Sequence[str]) -> None:
    """Warn that ``names`` of ``server`` are held back for review, with the command that reviews them."""
    count = f"{len(names)} tool{'s' if len(names) != 1 else ''}"
    warn(
        f"{server}: {count} held back, changed since you trusted it ({', '.join(names)}); "
        f"review with: {suggest('review', server)}"
    )
