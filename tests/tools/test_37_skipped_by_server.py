"""Issue 37, item 3: tools left out beyond OpenAI's 128 are counted per server, and said once.

Two servers of our own that share every tool name (``tests.servers.many_tools``, 100 tools each):
``tools --format openai --json`` sends 128 and its ``skipped`` names the other 72, each by its
unique ``mcp__server__tool`` name; under ``--lint`` the note is printed once, in the table. The servers
open in memory (the ``memory_servers`` seam), so ``MANY_TOOLS`` is set in the test's environment.
"""

from __future__ import annotations

import json

import pytest

from elftia_desktop.cli import main
from elftia_desktop.tools.formats.openai import MAX_TOOLS
from tests.helpers.live_router import add_servers, server_input

PER_SERVER = 100


@pytest.fixture
def two_servers(monkeypatch: pytest.MonkeyPatch, memory_servers: list[str]) -> None:
    monkeypatch.setenv("ELFTIA_NO_DAEMON", "1")
    monkeypatch.setenv("MANY_TOOLS", str(PER_SERVER))  # read by each in-memory server as it loads
    add_servers(*(server_input(name, "many_tools") for name in ("alpha", "beta")))


def test_the_left_out_tools_of_two_servers_are_all_counted(
    two_servers: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tools", "--format", "openai", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["payload"]) == MAX_TOOLS
    assert len(out["skipped"]) == 2 * PER_SERVER - MAX_TOOLS
    assert "mcp__beta__op_099" in out["skipped"]
    sent = {t["function"]["name"] for t in out["payload"]}
    assert not sent & set(out["skipped"])


def test_the_lint_says_it_once_with_the_count(two_servers: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tools", "--format", "openai", "--lint"]) == 0
    captured = capsys.readouterr()
    left = 2 * PER_SERVER - MAX_TOOLS
    assert captured.out.count(f"{left} left out") == 1
    assert f"{left} left out" not in captured.err
