"""Issue 32: CLI tables stay aligned when a name has emoji or CJK characters."""

from __future__ import annotations

import pytest

from elftia_desktop.cli.output import display_width, print_table


@pytest.mark.parametrize(
    ("text", "width"),
    [("files", 5), ("🚀 deploy", 9), ("检索", 4), ("⚠️", 2), ("e\u0301", 1), ("", 0)],
)
def test_display_width_counts_terminal_columns(text: str, width: int) -> None:
    assert display_width(text) == width


def test_columns_after_wide_names_line_up(capsys: pytest.CaptureFixture[str]) -> None:
    print_table(["NAME", "STATE"], [["🚀 deploy", "on"], ["检索工具", "off"], ["plain", "on"]])
    lines = capsys.readouterr().out.splitlines()
    starts = {display_width(line[: line.rindex("  ") + 2]) for line in lines if not line.startswith("-")}
    assert starts == {display_width("🚀 deploy") + 2}  # every STATE cell starts in the same column
    assert lines[1] == "-" * 9 + "  " + "-" * 5
