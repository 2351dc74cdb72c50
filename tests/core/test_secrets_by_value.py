"""Secrets recognised by their value through ``elftia-mcp``: tokens under ordinary names, URL
credentials, exports in every format, and the crash log."""

from __future__ import annotations

import argparse
import json
import stat
import sys
from pathlib import Path

import pytest

from elftia_desktop.cli.crash import crash_log_path, report_crash
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.core.secret_detect import secret_kind, url_secrets
from elftia_desktop.core.secrets import SecretVault
from tests.cli.test_servers import cli

PAT = "ghp_" + "Ab3" * 12
KEYS = {
    "GitHub token": PAT,
    "OpenAI API key": "sk-proj-" + "q7Z" * 10,
    "Anthropic API key": "sk-ant-api03-" + "x9Y" * 10,
    "Slack token": "xoxb-1234567890-abcdefghij",
    "AWS access key": "AKIAIOSFODNN7EXAMPLE",
    "Google API key": "AIza" + "B" * 35,
    "Stripe key": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "JSON Web Token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "private key": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
    "random-looking token": "Zx81kQ0pW3nB7vT5yR2mC9aL4hJ6gF1d",
}


@pytest.mark.parametrize(("what", "value"), list(KEYS.items()))
def test_token_shapes_are_recognised(what: str, value: str) -> None:
    assert secret_kind(value) == what


@pytest.mark.parametrize(
    "value",
    [
        "npx",
        "-y",
        "@modelcontextprotocol/server-filesystem",
        "/home/alice/Documents",
        "https://example.com/mcp",
        "0123456789abcdef0123456789abcdef01234567",
        "production",
        "--verbose",
        "stdio",
        "true",
    ],
)
def test_ordinary_values_are_not_secrets(value: str) -> None:
    assert secret_kind(value) is None


def test_a_token_under_an_ordinary_name_goes_to_the_keyring(isolated_data_dir: Path) -> None:
    assert (
        cli(
            "add",
            "gh",
            "--env",
            f"GITHUB_PAT={PAT}",
            "--env",
            f"CONFIG={PAT}",
            "--env",
            "MODE=fast",
            "--",
            "npx",
            "pkg",
        ).returncode
        == 0
    )
    text = (isolated_data_dir / "mcp-config.json").read_text()
    assert PAT not in text
    env = json.loads(cli("list", "--json").stdout)[0]["config"]["env"]
    assert env == {"GITHUB_PAT": "${secret:GITHUB_PAT}", "CONFIG": "${secret:CONFIG}", "MODE": "fast"}


def test_url_credentials_go_to_the_keyring_and_come_back_at_start(isolated_data_dir: Path) -> None:
    url = "https://alice:pa55word@example.com/mcp?api_key=abc123def&region=eu"
    assert cli("add", "remote", "--url", url).returncode == 0
    stored = json.loads(cli("list", "--json").stdout)[0]
    assert stored["config"]["url"] == (
        "https://alice:${secret:URL_PASSWORD}@example.com/mcp?api_key=${secret:URL_QUERY_API_KEY}&region=eu"
    )
    assert "pa55word" not in (isolated_data_dir / "mcp-config.json").read_text()
    vault = SecretVault()
    assert vault.resolve_url(McpServerRecord.model_validate(stored)).config.url == url
    assert url_secrets("https://example.com/mcp?page=2") == ("https://example.com/mcp?page=2", {})


@pytest.mark.parametrize("fmt", ["claude-desktop", "claude-code", "cursor", "vscode"])
def test_exports_never_carry_secret_values(fmt: str) -> None:
    cli("add", "gh", "--env", f"CONFIG={PAT}", "--", "npx", "pkg")
    cli("add", "remote", "--url", "https://alice:pa55word@example.com/mcp?token=abc123def")
    out = cli("export", fmt).stdout
    assert PAT not in out and "pa55word" not in out and "abc123def" not in out
    assert "${secret:" not in out


@pytest.mark.skipif(sys.platform == "win32", reason="file modes are POSIX; Windows relies on the profile folder ACL")
def test_crash_log_redacts_the_command_line_and_is_private(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["elftia-mcp", "add", "x", "--env", "API_KEY=hunter2hunter2", "--env", f"C={PAT}"])
    code = report_crash(argparse.Namespace(command="add", json=False), RuntimeError(f"boom {PAT}"), debug=False)
    assert code == 1
    log = crash_log_path().read_text()
    assert "hunter2" not in log and PAT not in log
    assert "'--env', 'API_KEY=***', '--env', 'C=***'" in log
    assert stat.S_IMODE(crash_log_path().stat().st_mode) == 0o600
