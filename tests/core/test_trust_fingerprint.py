"""The trust fingerprint through ``elftia-mcp``: env is part of trust, risky keys are flagged,
placeholders filled from the environment are named, and nothing can forge a prompt row."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from tests.cli.test_servers import ROOT, cli

SERVER = [sys.executable, str(ROOT / "tests" / "servers" / "rug_pull.py")]


def _call(tool: str, args: dict[str, str] | None = None, **env: str) -> str:
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        result = cli("call", "srv", tool, "--args", json.dumps(args or {}), "--json")
    finally:
        for k, v in old.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    return result.stdout + result.stderr


def test_env_change_on_a_trusted_server_asks_again_with_the_risky_key_flagged() -> None:
    assert cli("add", "srv", "--trust", "--", *SERVER).returncode == 0
    assert json.loads(_call("argv"))["content"][0]["text"] == json.dumps(SERVER[2:])  # trusted: it starts
    updated = cli("update", "srv", "--env", "PYTHONPATH=/tmp/evil")
    assert updated.returncode == 0
    assert "What it runs changed; trust it again: elftia-mcp trust srv" in updated.stdout
    assert json.loads(cli("list", "--json").stdout)[0]["isTrusted"] is False
    refused = _call("argv")
    assert "srv is not trusted yet, so it was not started" in refused

    prompt = cli("trust", "srv").stdout  # not a terminal: shows, then refuses without --yes
    assert (
        "  Risky variable: PYTHONPATH: makes Python import modules (and run sitecustomize.py) from these folders"
        in prompt
    )
    assert "  changed env PYTHONPATH (risky): (unset) -> '/tmp/evil'" in prompt


def test_every_dangerous_key_is_flagged_and_path_shown_as_a_diff() -> None:
    keys = ["LD_PRELOAD=/x.so", "NODE_OPTIONS=--require /x.js", "DYLD_INSERT_LIBRARIES=/x.dylib", "MODE=fast"]
    cli("add", "srv", *[f"--env={k}" for k in keys], f"--env=PATH=/tmp/bin{os.pathsep}/usr/bin", "--", *SERVER)
    rows = json.loads(cli("trust", "srv", "--yes", "--json").stdout)["rows"]
    risky = [value for label, value in rows if label == "Risky variable"]
    assert risky[:3] == [
        "LD_PRELOAD: loads these libraries into the server and every program it starts (Linux)",
        "NODE_OPTIONS: adds Node.js options, e.g. --require of any file, to every node process",
        "DYLD_INSERT_LIBRARIES: loads these libraries into the server and every program it starts (macOS)",
    ]
    assert risky[3].startswith("PATH: decides which program a bare command name runs (searched first: /tmp/bin; ")
    assert "+ /tmp/bin" in risky[3]
    assert not any("MODE" in r for r in risky)


def test_placeholders_are_named_and_secret_ones_never_reach_the_command_line() -> None:
    cli("add", "srv", "--trust", "--", *SERVER, "--dir=${WORK_DIR}", "--token=${GITHUB_TOKEN}")
    rows = json.loads(cli("trust", "srv", "--yes", "--json").stdout)["rows"]
    filled = [value for label, value in rows if label == "From your environment"]
    assert filled == [
        "${WORK_DIR} in argument #2 is filled from your variable WORK_DIR",
        "${GITHUB_TOKEN} in argument #3 is filled from your variable GITHUB_TOKEN (it looks secret, so the "
        "server will not start with it on its command line)",
    ]
    out = _call("argv", WORK_DIR="/srv/work", GITHUB_TOKEN="ghp_" + "a1" * 18)
    assert (
        "srv: argument 3 would put the value of GITHUB_TOKEN (${GITHUB_TOKEN}) on the command line, where every "
        "user of this computer can read it." in out
    )
    assert "a1a1a1" not in out

    cli("update", "srv", f"--arg={SERVER[1]}", "--arg=--dir=${WORK_DIR}")
    cli("trust", "srv", "--yes")
    assert json.loads(json.loads(_call("argv", WORK_DIR="/srv/work"))["content"][0]["text"]) == ["--dir=/srv/work"]


def test_line_breaks_and_bidi_in_an_argument_cannot_forge_a_row(isolated_data_dir: Path) -> None:
    forged = "x\r\nCommand:        /bin/true\u202e"
    cli("add", "srv", "--", *SERVER, forged)
    prompt = cli("trust", "srv").stdout
    assert [line for line in prompt.splitlines() if line.strip().startswith("Command:")] == [
        f"  Command:        {sys.executable}",
    ]
    assert "x\\r\\nCommand:        /bin/true\\u202e" in prompt
    table = cli("list").stdout
    assert "\r" not in table and "\u202e" not in table
