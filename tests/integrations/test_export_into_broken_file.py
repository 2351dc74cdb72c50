"""Writing into another app's config that is not UTF-8: a specific refusal, and the file is left alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from elftia_desktop.core.errors import JsonInputError
from elftia_desktop.core.models import McpServerInput
from elftia_desktop.integrations.transfer import export_text, plan_app_write


def test_planning_into_a_latin1_file_names_the_byte_and_writes_nothing(tmp_path: Path) -> None:
    record = McpServerInput.model_validate({"name": "time", "config": {"command": "uvx"}}).to_record()
    target = tmp_path / "mcp.json"
    original = '{"mcpServers": {"café": {"command": "x"}}}'.encode("latin-1")
    target.write_bytes(original)
    with pytest.raises(JsonInputError, match=r"is not valid UTF-8: byte 0xe9 at offset 20 \(line 1, column 21\)"):
        plan_app_write(export_text([record], "cursor"), target)
    assert target.read_bytes() == original
