"""``claude push --with-secrets``: the real ``claude`` CLI gets the secret, but never on its command line."""

from __future__ import annotations

import asyncio
import json
import stat
import sys
from pathlib import Path

import pytest

from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.models import McpServerInput
from elftia_desktop.integrations.claude_cli import ClaudeCli

TOKEN_SERVER = Path(__file__).parent / "token_server.py"
SECRET = "s3cret-by-file"


def _logging_claude(tmp_path: Path, claude_bin: Path) -> tuple[Path, Path]:
    """A ``claude`` that writes its arguments to a log, then runs the real one."""
    log = tmp_path / "argv.log"
    wrapper = tmp_path / "claude"
    wrapper.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec "{claude_bin}" "$@"\n')
    wrapper.chmod(0o755)
    return wrapper, log


@pytest.mark.skipif(sys.platform == "win32", reason="a /bin/sh wrapper and file modes")
@pytest.mark.parametrize("scope", ["user", "local"])
def test_with_secrets_reaches_claude_code_but_not_its_command_line(
    scope: str, claude_env: dict[str, str], claude_bin: Path, catalog: ServerCatalog, tmp_path: Path
) -> None:
    record = catalog.add(
        McpServerInput.model_validate(
            {
                "name": "token-echo",
                "config": {
                    "command": sys.executable,
                    "args": [str(TOKEN_SERVER), SECRET],
                    "env": {"ECHO_TOKEN": SECRET},
                },
            }
        )
    )
    assert record is not None and record.config.env == {"ECHO_TOKEN": "${secret:ECHO_TOKEN}"}
    wrapper, log = _logging_claude(tmp_path, claude_bin)
    project = tmp_path / "proj"
    project.mkdir()
    cli = ClaudeCli(executable=str(wrapper), env=claude_env, cwd=project, timeout=90.0)

    sent = asyncio.run(cli.add(record, catalog.vault, scope=scope, with_secrets=True))  # type: ignore[arg-type]
    assert sent.data["mcpServers"]["token-echo"]["env"] == {"ECHO_TOKEN": SECRET}
    calls = log.read_text()
    assert "mcp add-json --scope " + scope in calls
    assert '"ECHO_TOKEN":"${ECHO_TOKEN}"' in calls.replace(" ", "")
    assert calls.count(SECRET) == 1  # only as the server's own argument, never as the env value

    path = Path(claude_env["HOME"]) / ".claude.json"
    data = json.loads(path.read_text())
    servers = data["mcpServers"] if scope == "user" else data["projects"][str(project.resolve())]["mcpServers"]
    assert servers["token-echo"]["env"] == {"ECHO_TOKEN": SECRET}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "Connected" in str(asyncio.run(cli.get("token-echo"))["status"])  # it starts with the secret
