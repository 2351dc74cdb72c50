"""Issue 14 for other apps' files: a broken one is reported with its position; the rest still import."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from elftia_desktop.integrations.detector import Environment, detect


def test_non_utf8_and_deeply_nested_files_are_reported_and_the_others_found(
    home: Path, machine: Callable[..., Environment], place: Callable[[str, Path], Path]
) -> None:
    place("cursor_mcp.json", home / ".cursor/mcp.json")
    desktop = home / ".config/Claude/claude_desktop_config.json"
    desktop.parent.mkdir(parents=True)
    desktop.write_bytes(b'{\n  "mcpServers": {\n    "caf\xe9": {"command": "x"}\n  }\n}')
    windsurf = home / ".codeium/windsurf/mcp_config.json"
    windsurf.parent.mkdir(parents=True)
    windsurf.write_text('{"mcpServers": {"a": ' + "[" * 4000 + "]" * 4000 + "}}")
    by_app = {c.location.app: c for c in detect(machine("linux"))}
    broken = by_app["claude-desktop"]
    assert broken.error is not None and "is not valid UTF-8: byte 0xe9 at offset 28 (line 3, column 9)" in broken.error
    assert (broken.line, broken.column) == (3, 9)
    deep = by_app["windsurf"]
    assert deep.error is not None and "deeper than 100 levels" in deep.error and deep.line == 1
    assert by_app["cursor"].error is None and by_app["cursor"].server_names
