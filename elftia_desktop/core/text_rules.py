"""Rules for the text fields of a server definition: what can never work is refused up front.

A NUL cannot pass through ``execve`` or an environment block; a CR or LF in an HTTP header
would split the request; a 5,000-character name breaks every list it appears in. Each check
raises ``ValueError`` with a message that names the offending item and says what is allowed;
the pydantic location adds the field (``config.args``, ``name`` ...).
"""

from __future__ import annotations

import logging
import re
import unicodedata

MAX_NAME_LENGTH = 100
"""Longest server (and agent) name, in characters."""
MAX_COMMAND_LENGTH = 4096
"""Longest command, working folder or argument list entry count a server may have."""
MAX_URL_LENGTH = 8192
"""Longest endpoint URL."""
MAX_TIMEOUT_SECONDS = 24 * 60 * 60
"""Longest timeout of any phase (a day)."""

_ANY_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_CONTROL_BUT_WHITESPACE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_HEADER_VALUE_FORBIDDEN = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_PRINTABLE = re.compile(r"[\x20-\x7e]*")
_ESCAPES = {"\r": "\\r", "\n": "\\n", "\t": "\\t"}
_INVISIBLE_CATEGORIES = ("Cf", "Zl", "Zp", "Co", "Cn")
# Letters of Cyrillic and Greek (lower case, after casefold) that look like Latin ones.
_CONFUSABLES = {
    look: latin
    for latins, looks in (
        ("a", "аα"),
        ("b", "ьβ"),
        ("c", "сϲ"),
        ("d", "ԁ"),
        ("e", "еε"),
        ("h", "һ"),
        ("i", "іιί"),
        ("j", "ј"),
        ("k", "κк"),
        ("l", "ӏ"),
        ("n", "ո"),
        ("o", "оοσ"),
        ("p", "рρ"),
        ("q", "ԛ"),
        ("s", "ѕ"),
        ("t", "т"),
        ("u", "υ"),
        ("v", "νѵ"),
        ("w", "ѡ"),
        ("x", "хχ"),
        ("y", "уγ"),
    )
    for latin in latins
    for look in looks
}
_NAMES = {"\x00": "a NUL character", "\n": "a line break (LF)", "\r": "a carriage return (CR)", "\t": "a tab"}


def describe_char(char: str) -> str:
    """``a NUL character`` / ``the control character U+001B``."""
    return _NAMES.get(char, f"the control character U+{ord(char):04X}")


def check_no_control(value: str, what: str = "", *, allow_whitespace: bool = False) -> str:
    """Refuse control characters (tab, LF and CR are allowed with ``allow_whitespace``).

    ``what`` names the part when it is not the whole field (``argument #2``); the field itself
    is named by the validation error's location.
    """
    pattern = _CONTROL_BUT_WHITESPACE if allow_whitespace else _ANY_CONTROL
    match = pattern.search(value)
    if match:
        subject = f"{what} contains" if what else "contains"
        raise ValueError(f"{subject} {describe_char(match.group())} at position {match.start() + 1}")
    return value


def check_name(name: str) -> str:
    """A server or agent name: NFKC-normalised, bounded, one line, no bidi or zero-width characters.

    Returns the normalised name (full-width ``ＫＥＥＰ`` becomes ``KEEP``).
    """
    name = unicodedata.normalize("NFKC", name)
    if len(name) > MAX_NAME_LENGTH:
        raise ValueError(f"{len(name)} characters is too long; at most {MAX_NAME_LENGTH} are allowed")
    check_no_control(name)
    for position, char in enumerate(name, start=1):
        if unicodedata.category(char) in _INVISIBLE_CATEGORIES:
            raise ValueError(
                f"contains the invisible character U+{ord(char):04X} ({unicodedata.name(char, 'format character')}) "
                f"at position {position}; names may not hold bidi, zero-width or other format characters"
            )
    return name


def name_key(name: str) -> str:
    """What two names are compared by: NFKC, case-folded, look-alike letters mapped to Latin ones.

    Two names with the same key are confusable (``Keep`` and ``Kеep`` with a Cyrillic ``е``).
    """
    folded = unicodedata.normalize("NFKC", name).casefold()
    return "".join(_CONFUSABLES.get(char, char) for char in folded if unicodedata.category(char) != "Cf")


def visible(text: str) -> str:
    """``text`` on one line with control, bidi and zero-width characters shown as escapes.

    ``\\r``, ``\\n`` and ``\\t`` by name, anything else as ``\\u202e``; used for every prompt,
    list and log line that shows text from a server or a config, so nothing can fake a row.
    """
    if _PRINTABLE.fullmatch(text):
        return text
    return "".join(_escape_char(char) for char in text)


def quoted(value: object) -> str:
    """``value`` in the messages' one quoting style: plain double quotes, its hidden characters escaped."""
    return f'"{visible(str(value))}"'


class VisibleFormatter(logging.Formatter):
    """A log formatter whose lines show control, bidi and zero-width characters escaped.

    A server name, a tool name or a server's own message cannot start a fake log line or drive
    the terminal; a traceback below the line keeps its line breaks.
    """

    def formatMessage(self, record: logging.LogRecord) -> str:
        """The record's line, escaped."""
        return visible(super().formatMessage(record))


def _escape_char(char: str) -> str:
    if char in _ESCAPES:
        return _ESCAPES[char]
    if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp"):
        return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"
    return char


def check_command(command: str | None) -> str | None:
    """The program of a stdio server: one line of at most :data:`MAX_COMMAND_LENGTH` characters."""
    if command is None:
        return None
    if len(command) > MAX_COMMAND_LENGTH:
        raise ValueError(f"{len(command)} characters is too long; at most {MAX_COMMAND_LENGTH} are allowed")
    return check_no_control(command)


def check_args(args: list[str]) -> list[str]:
    """Arguments may hold tabs and line breaks (scripts for ``sh -c``), never NUL or other controls."""
    if len(args) > MAX_COMMAND_LENGTH:
        raise ValueError(f"{len(args)} arguments; at most {MAX_COMMAND_LENGTH} are allowed")
    for index, arg in enumerate(args):
        check_no_control(arg, f"argument #{index + 1} ({_preview(arg)})", allow_whitespace=True)
    return args


def check_env_values(env: dict[str, str]) -> dict[str, str]:
    """Environment values: no NUL or control characters other than tab and line breaks."""
    for key, value in env.items():
        check_no_control(value, f"the value of {key}", allow_whitespace=True)
    return env


def check_header_values(headers: dict[str, str]) -> dict[str, str]:
    """Header values: no CR, LF, NUL or other controls (a tab is allowed), so nothing is ever injected."""
    for key, value in headers.items():
        match = _HEADER_VALUE_FORBIDDEN.search(value)
        if match:
            raise ValueError(
                f"the value of header {key!r} contains {describe_char(match.group())}; "
                "header values must be a single line"
            )
    return headers


def check_url_text(url: str | None) -> str | None:
    """An endpoint: bounded, without spaces or control characters."""
    if url is None:
        return None
    if len(url) > MAX_URL_LENGTH:
        raise ValueError(f"{len(url)} characters is too long; at most {MAX_URL_LENGTH} are allowed")
    check_no_control(url)
    if " " in url.strip():
        raise ValueError("contains a space; encode it as %20")
    return url


def display_name(name: str, limit: int = 40) -> str:
    """A name short enough to quote in a message."""
    return name if len(name) <= limit else name[: limit - 1] + "…"


def _preview(text: str) -> str:
    shown = text if len(text) <= 24 else text[:21] + "..."
    return repr(shown)
