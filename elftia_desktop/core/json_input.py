"""The one door for JSON from outside: files, pasted text, stdin, other apps' configs, CLI arguments.

Every way in decodes and parses here, so every refusal is a :class:`JsonInputError` that says
what is wrong and where:

- bytes must be UTF-8 (a UTF-8 byte-order mark is accepted); otherwise the error names the
  byte offset, the line and column, and the encoding expected (a UTF-16/32 file is named as such);
- the text may not exceed :data:`MAX_JSON_CHARS` characters (other apps' configs, such as
  Claude Code's ``~/.claude.json``, get :data:`MAX_APP_CONFIG_CHARS`);
- arrays and objects may not nest deeper than :data:`MAX_DEPTH` levels (a few thousand ``[``
  would otherwise exhaust Python's recursion); the error gives the line and column where the
  limit was crossed;
- a syntax error gives its line and column.
"""

from __future__ import annotations

import codecs
import json
import re
import sys
from pathlib import Path
from typing import Any

from elftia_desktop.core.errors import JsonInputError

MAX_JSON_CHARS = 8 * 1024 * 1024
"""The largest JSON text taken from a person or a file of ours (8 Mi characters)."""
MAX_APP_CONFIG_CHARS = 64 * 1024 * 1024
"""The largest config file of another app read for import (64 Mi characters)."""
MAX_DEPTH = 100
"""How deeply arrays and objects may nest."""

_WIDE_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


def decode_json_bytes(data: bytes, source: str) -> str:
    """UTF-8 text of ``data`` (a UTF-8 BOM removed); ``JsonInputError`` naming the bad byte."""
    for bom, encoding in _WIDE_BOMS:
        if data.startswith(bom):
            raise JsonInputError(f"{source} is encoded as {encoding}; save it as UTF-8 and try again")
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise JsonInputError(
            f"{source} is not valid UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start} "
            f"(line {line}, column {column}) cannot be decoded; save the file as UTF-8",
            line=line,
            column=column,
        ) from exc


def parse_json_text(text: str, source: str = "The JSON", *, max_chars: int = MAX_JSON_CHARS) -> Any:
    """Parse ``text``, bounded in size and depth; every problem a ``JsonInputError`` (see module doc)."""
    if len(text) > max_chars:
        raise JsonInputError(f"{source} is too large: {_size(len(text))} characters (the limit is {_size(max_chars)})")
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise JsonInputError(
            f"{source} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}",
            line=exc.lineno,
            column=exc.colno,
        ) from exc
    except RecursionError:
        raise _too_deep(text, source) from None
    if _depth_exceeds(value, MAX_DEPTH):
        raise _too_deep(text, source)
    return value


def read_json_file(path: Path, source: str | None = None, *, max_chars: int = MAX_JSON_CHARS) -> Any:
    """Read, decode and parse a JSON file; unreadable files are a ``JsonInputError`` too."""
    where = source or str(path)
    return parse_json_text(decode_json_bytes(read_bytes(path, where, max_chars), where), where, max_chars=max_chars)


def read_input_text(path: str, *, max_chars: int = MAX_JSON_CHARS) -> tuple[str, str]:
    """The decoded text of a file, or of standard input for ``-``, with the name to report it by."""
    if path == "-":
        data = sys.stdin.buffer.read(max_chars * 4 + 1)
        if len(data) > max_chars * 4:
            raise JsonInputError(f"standard input is too large (over {_size(max_chars * 4)} bytes)")
        return decode_json_bytes(data, "standard input"), "standard input"
    return decode_json_bytes(read_bytes(Path(path), path, max_chars * 4), path), path


def read_bytes(path: Path, source: str, max_bytes: int = MAX_JSON_CHARS * 4) -> bytes:
    """The bytes of ``path``, refusing what cannot be read or is far too large."""
    try:
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise JsonInputError(f"{source}: cannot be read ({exc.strerror or exc})") from exc
    if len(data) > max_bytes:
        raise JsonInputError(f"{source} is too large (over {_size(max_bytes)} bytes)")
    return data


def _depth_exceeds(value: Any, limit: int) -> bool:
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def _too_deep(text: str, source: str) -> JsonInputError:
    depth = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                line = text.count("\n", 0, match.start()) + 1
                column = match.start() - (text.rfind("\n", 0, match.start()) + 1) + 1
                return JsonInputError(
                    f"{source} nests arrays/objects deeper than {MAX_DEPTH} levels (at line {line}, column {column})",
                    line=line,
                    column=column,
                )
        elif token in "]}":
            depth -= 1
    return JsonInputError(f"{source} nests arrays/objects deeper than {MAX_DEPTH} levels")


def _size(count: int) -> str:
    for unit, scale in (("Mi", 1024 * 1024), ("Ki", 1024)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return str(count)
