"""Per-server log: stderr lines of stdio servers and the server's ``notifications/message``."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable
from typing import Any

LOG_LINES = 500
"""Lines kept per server."""
MAX_LINE_CHARS = 4000
"""Longer lines are cut (a server may print a huge blob)."""


class ServerLog:
    """A ring buffer of the last ``LOG_LINES`` lines; every new line is also passed to ``on_line``."""

    def __init__(self, on_line: Callable[[str], None] | None = None, size: int = LOG_LINES) -> None:
        self._lines: deque[str] = deque(maxlen=size)
        self._on_line = on_line
        self.added = 0
        """Lines added since the log was made (a mark for :meth:`tail` of one connection's lines)."""

    def resize(self, size: int) -> None:
        """Keep at most ``size`` lines from now on (the newest are kept)."""
        if size != self._lines.maxlen:
            self._lines = deque(self._lines, maxlen=size)

    def add(self, line: str) -> None:
        """Append one line (trailing newline removed, cut at ``MAX_LINE_CHARS``)."""
        line = line.rstrip("\r\n")
        if len(line) > MAX_LINE_CHARS:
            line = line[:MAX_LINE_CHARS] + " …"
        self._lines.append(line)
        self.added += 1
        if self._on_line is not None:
            self._on_line(line)

    def lines(self) -> list[str]:
        """All kept lines, oldest first."""
        return list(self._lines)

    def tail(self, count: int = 10, since: int = 0) -> list[str]:
        """The last ``count`` lines, of those added after mark ``since`` (an earlier :attr:`added`)."""
        return list(self._lines)[-min(count, self.added - since) :] if self.added > since else []


def format_log_message(level: str, logger: str | None, data: Any) -> str:
    """One log line for a server's ``notifications/message``."""
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
    prefix = f"[{level}]" + (f" {logger}:" if logger else "")
    return f"{prefix} {text}"
