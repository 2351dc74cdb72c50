"""Issue 34: a URL-mode question at the terminal: the domain on a line of its own, nothing opened by Elftia,
and unattended answers (no terminal, ``--elicit accept-defaults``) decline it."""

from __future__ import annotations

import pytest

from elftia_desktop.cli.url_prompt import ask_url
from elftia_desktop.core.url_elicitation import url_question
from tests.connections.pool_helpers import stdio_input
from tests.helpers.cli_runner import run_cli

pytestmark = pytest.mark.usefixtures("memory_servers")


def test_the_prompt_shows_the_domain_and_asks(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = iter(["y", ""])
    monkeypatch.setattr("builtins.input", lambda prompt: next(answers))
    question = url_question("http://pay.example.net/checkout", "e1")
    assert ask_url("shop", "Pay for the order", question) == "accept"
    err = capsys.readouterr().err
    assert "  DOMAIN: pay.example.net\n" in err and "not an https:// address" in err
    assert "Open this address in your browser: http://pay.example.net/checkout" in err
    assert ask_url("shop", "Pay for the order", question) == "decline"  # Enter: the default is no


def test_unattended_calls_decline_it() -> None:
    config = stdio_input("linker", "linker").config
    assert run_cli("add", "linker", "--", config.command or "", *config.args).returncode == 0
    assert run_cli("trust", "linker", "--yes").returncode == 0
    called = run_cli("call", "linker", "link_account", "--yes", "--elicit", "accept-defaults")
    assert called.returncode == 0 and "link: decline" in called.stdout, called.stderr
    assert "linker asked to have example.com opened (https://example.com/link)" in called.stderr
    assert "declined: a URL question needs you at a terminal" in called.stderr
