"""Issue 33: ``elftia-mcp sandbox NAME`` shows and changes a server's sandbox; loosening it asks for trust again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from elftia_desktop.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of one in-process command."""
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def saved(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    code, out, _ = run(capsys, "list", "--json")
    assert code == 0
    return dict(json.loads(out)[0])


@pytest.fixture
def trusted(capsys: pytest.CaptureFixture[str]) -> None:
    """A trusted stdio server ``files``."""
    assert (
        run(capsys, "add", "files", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/srv/docs")[0] == 0
    )
    assert run(capsys, "trust", "files", "--yes")[0] == 0


def test_show_says_off_plainly(capsys: pytest.CaptureFixture[str], trusted: None) -> None:
    code, out, _ = run(capsys, "sandbox", "files")
    assert code == 0 and "Sandbox:" in out and "off: the server runs with all your rights" in out


def test_flags_save_the_profile(capsys: pytest.CaptureFixture[str], trusted: None, isolated_data_dir: Path) -> None:
    code, out, _ = run(
        capsys, "sandbox", "files", "--on", "--allow-write", "/srv/docs", "--allow-read", "/srv/ref", "--net", "none"
    )
    assert code == 0 and 'Saved the sandbox of "files"' in out
    record = saved(capsys)
    assert record["sandbox"] == {
        "enabled": True,
        "allowRead": ["/srv/ref"],
        "allowWrite": ["/srv/docs"],
        "net": "none",
        "allowNet": [],
    }
    assert record["isTrusted"] is True  # tighter than "no sandbox": no new question
    code, out, _ = run(capsys, "sandbox", "files", "--allow-net", "api.github.com:443", "--json")
    assert json.loads(out)["sandbox"]["allowNet"] == ["api.github.com:443"]
    assert json.loads(out)["sandbox"]["net"] == "allow"


def test_loosening_outside_the_form_asks_again_with_the_diff(capsys: pytest.CaptureFixture[str], trusted: None) -> None:
    assert run(capsys, "sandbox", "files", "--on", "--net", "none")[0] == 0
    assert run(capsys, "trust", "files", "--yes")[0] == 0
    code, out, _ = run(capsys, "sandbox", "files", "--net", "any")
    assert code == 0
    assert "sandbox network: none -> any" in out and "elftia-mcp trust files" in out
    assert saved(capsys)["isTrusted"] is False
    code, out, _ = run(capsys, "trust", "files", "--yes")
    assert "changed sandbox network: 'none' -> 'any'" in out and "Network:" in out
    assert run(capsys, "sandbox", "files", "--net", "loopback")[0] == 0
    assert saved(capsys)["isTrusted"] is True  # tightening needs no confirming
    assert run(capsys, "sandbox", "files", "--off")[0] == 0
    assert saved(capsys)["isTrusted"] is False


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--allow-net", "bad host"], 'sandbox host "bad host" is not a host or host:port'),
        (["--allow-read", "relative/path"], 'sandbox path "relative/path" must be absolute'),
    ],
)
def test_bad_values_exit_2_naming_them(
    capsys: pytest.CaptureFixture[str], trusted: None, flags: list[str], message: str
) -> None:
    code, _, err = run(capsys, "sandbox", "files", *flags)
    assert code == 2 and message in err
    assert "sandbox" not in saved(capsys)


def test_remote_servers_have_no_sandbox(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "add", "remote", "--url", "https://example.com/mcp")[0] == 0
    code, _, err = run(capsys, "sandbox", "remote", "--on")
    assert code == 1 and "only stdio servers run in one" in err
