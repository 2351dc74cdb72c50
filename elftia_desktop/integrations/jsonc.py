"""JSON with comments (VS Code's settings, Zed's) read as JSON: comments and trailing commas become spaces, so
every line and column stays where it was for the error messages."""

from __future__ import annotations


def strip_jsonc(text: str) -> str:
    """JSON-with-comments to JSON: comments and trailing commas become spaces (lines and columns kept)."""
    return _drop_trailing_commas(_blank_comments(text))


def _string_end(text: str, start: int) -> int:
    """The index after the string literal that opens at ``start``."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == '"':
            return i + 1
        else:
            i += 1
    return len(text)


def _blank_comments(text: str) -> str:
    out, i, n = list(text), 0, len(text)
    while i < n:
        if text[i] == '"':
            i = _string_end(text, i)
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out[i:end] = " " * (end - i)
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out[i:end] = [c if c == "\n" else " " for c in text[i:end]]
            i = end
        else:
            i += 1
    return "".join(out)


def _drop_trailing_commas(text: str) -> str:
    out, i, n = list(text), 0, len(text)
    while i < n:
        if text[i] == '"':
            i = _string_end(text, i)
            continue
        if text[i] == ",":
            j = i + 1
            while j < n and text[j].isspace():
                j += 1
            if j < n and text[j] in "}]":
                out[i] = " "
        i += 1
    return "".join(out)
