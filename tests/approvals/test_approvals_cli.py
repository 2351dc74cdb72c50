"""Issue 32: ``elftia-mcp call`` asks on a terminal, ``--yes`` allows, off a terminal it refuses (exit 5);
``elftia-mcp tools NAME --approve/--ask`` show and set the same state as Discover's switches."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from elftia_desktop.cli import main
from elftia_desktop.cli.approval import EXIT_NOT_APPROVED, PROMPT
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.models import McpServerRecord

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.usefixtures("memory_servers")  # the command in process, its server in memory
def test_off_a_terminal_a_call_that_needs_approval_is_refused(
    notes: McpServerRecord, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["call", "notes", "delete_note", "--args", '{"key": "a"}', "--no-daemon"])
    err = capsys.readouterr().err
    assert code == EXIT_NOT_APPROVED == 5
    assert 'not a terminal: pass --yes to allow "delete_note" of notes' in err
    assert "elftia-mcp tools notes --approve delete_note" in err
    assert main(["call", "notes", "read_note", "--args", '{"key": "r"}', "--no-daemon"]) == 0  # read-only
    assert main(["call", "notes", "delete_note", "--args", '{"key": "b"}', "--yes", "--no-daemon"]) == 0
    assert capsys.readouterr().out.splitlines() == ["note r", "deleted b"]


def test_help_documents_yes_and_the_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["call", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "--yes" in shown and "5 not approved (denied, or off a terminal without --yes)" in shown


def test_on_a_terminal_always_allow_is_asked_once_and_saved(notes: McpServerRecord, catalog: ServerCatalog) -> None:
    pty = pytest.importorskip("pty")
    leader, follower = pty.openpty()
    argv = [sys.executable, "-m", "elftia_desktop.cli", "call", "notes", "post_note", "--args", '{"text": "hi"}']
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [*argv, "--no-daemon"], stdin=follower, stderr=follower, stdout=subprocess.PIPE, cwd=ROOT, env=env, text=True
    )
    os.close(follower)
    seen = ""
    while PROMPT.strip() not in seen:  # the question, then the prompt
        chunk = os.read(leader, 4096).decode()
        assert chunk, f"the terminal closed before the prompt: {seen!r}"
        seen += chunk
    assert 'Allow the tool "post_note" of the server "notes" to run?' in seen
    assert "reaches outside services" in seen and '"text": "hi"' in seen
    os.write(leader, b"a\n")
    out, _ = process.communicate(timeout=120)
    os.close(leader)
    assert process.returncode == 0 and out.strip() == "posted hi"
    assert catalog.get(notes.id).auto_approved_tools == ["post_note"]
    again = subprocess.run([*argv, "--no-daemon"], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert again.returncode == 0 and again.stdout.strip() == "posted hi"  # no terminal needed any more


@pytest.mark.usefixtures("memory_servers")  # the command in process, its server in memory
def test_tools_approve_and_ask_set_what_tools_shows(
    notes: McpServerRecord, catalog: ServerCatalog, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tools", "notes", "--json"]) == 0
    shown = {t["name"]: t["approval"] for t in json.loads(capsys.readouterr().out)["tools"]}
    assert shown == {"read_note": "auto", "ran": "auto", "delete_note": "asks", "post_note": "asks", "plain": "asks"}
    assert main(["tools", "notes", "--approve", "plain", "--ask", "read_note"]) == 0
    out = capsys.readouterr().out
    assert "plain" in out and "read_note" in out
    record = catalog.get(notes.id)
    assert record.auto_approved_tools == ["plain"] and record.disabled_auto_approve_tools == ["read_note"]
    assert main(["tools", "notes"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["SERVER", "TOOL", "ID", "APPROVAL", "DESCRIPTION"]
    rows = {line.split()[1]: line.split()[3] for line in table[2:]}
    assert rows["plain"] == "auto" and rows["read_note"] == "asks"


@pytest.mark.usefixtures("memory_servers")  # the command in process, its server in memory
def test_tools_approve_checks_its_input(notes: McpServerRecord, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tools", "notes", "--approve", "nope"]) == 2
    err = capsys.readouterr().err
    assert 'notes has no tool "nope" (its tools: read_note, delete_note, post_note, plain, ran)' in err
    assert main(["tools", "--approve", "plain"]) == 2
    assert "name the server, e.g. elftia-mcp tools NAME --approve TOOL" in capsys.readouterr().err
    assert main(["tools", "notes", "--approve", "plain", "--ask", "plain"]) == 2
    assert "--approve and --ask both name plain" in capsys.readouterr().err


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``elftia-mcp ARGS`` as a process, off a terminal."""
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "elftia_desktop.cli", *args]
    return subprocess.run(
        argv, capture_output=True, stdin=subprocess.DEVNULL, text=True, cwd=ROOT, env=env, timeout=120
    )


@pytest.mark.daemon
def test_through_the_pool_host_the_host_asks_the_command(notes: McpServerRecord, catalog: ServerCatalog) -> None:
    refused = cli("call", "notes", "delete_note", "--args", '{"key": "a"}')
    assert refused.returncode == EXIT_NOT_APPROVED, refused.stderr
    assert 'not a terminal: pass --yes to allow "delete_note" of notes' in refused.stderr
    allowed = cli("call", "notes", "delete_note", "--args", '{"key": "b"}', "--yes")
    assert allowed.returncode == 0 and allowed.stdout.strip() == "deleted b", allowed.stderr
    ran = cli("call", "notes", "ran", "--json")
    assert ran.returncode == 0, ran.stderr
    assert "delete_note b" in ran.stdout and "delete_note a" not in ran.stdout  # the host's server, one process
    assert catalog.get(notes.id).auto_approved_tools == []  # --yes allows once
