"""Issue 14 through ``elftia-mcp`` (in process): a message, never a traceback, nothing stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.cli_runner import CliResult, run_cli

ROOT = Path(__file__).resolve().parents[2]
GOOD = {"mcpServers": {"keep": {"command": "echo", "args": ["hello"]}}}


def cli(*args: str, env: dict[str, str] | None = None) -> CliResult:
    """``elftia-mcp ARGS`` in process."""
    return run_cli(*args, env=env)


@pytest.fixture
def config(isolated_data_dir: Path, tmp_path: Path) -> Path:
    """A config file holding one server, as the bytes every refusal must leave alone."""
    seed = tmp_path / "seed.json"
    seed.write_text(json.dumps(GOOD))
    assert cli("add-json", str(seed)).returncode == 0
    return isolated_data_dir / "mcp-config.json"


def servers_file(tmp_path: Path, name: str, entry: dict[str, object], key: str = "srv") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"mcpServers": {key: entry}}), encoding="utf-8")
    return path


LATIN_1 = '{"mcpServers": {"café": {"command": "x"}}}'.encode("latin-1")
CRLF = {"A": "1\r\nB: 2"}
BAD_FILES = {
    "latin-1": (
        lambda p: (p / "latin.json").write_bytes('{"mcpServers": {"café": {"command": "x"}}}'.encode("latin-1"))
    ),
    "deep": (lambda p: (p / "deep.json").write_text("[" * 5000 + "]" * 5000)),
    "nul": (lambda p: servers_file(p, "nul.json", {"command": "ec\x00ho"})),
    "long-name": (lambda p: servers_file(p, "long.json", {"command": "echo"}, key="n" * 5000)),
    "crlf-header": (
        lambda p: servers_file(p, "crlf.json", {"url": "https://x.test/mcp", "headers": {"A": "1\r\nB: 2"}})
    ),
}
EXPECTED = {
    "latin-1": "latin.json is not valid UTF-8: byte 0xe9 at offset 20 (line 1, column 21)",
    "deep": "deep.json nests arrays/objects deeper than 100 levels (at line 1, column 101)",
    "nul": "srv: command: contains a NUL character at position 3",
    "long-name": "name: 5000 characters is too long; at most 100 are allowed",
    "crlf-header": "headers: the value of header 'A' contains a carriage return (CR)",
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_file_is_refused_with_a_message_and_the_config_is_untouched(
    case: str, config: Path, tmp_path: Path
) -> None:
    before = config.read_bytes()
    BAD_FILES[case](tmp_path)
    path = next(p for p in tmp_path.iterdir() if p.name != "seed.json")
    result = cli("add-json", str(path))
    assert result.returncode == 2, result
    assert "Traceback" not in result.stdout + result.stderr
    assert EXPECTED[case] in result.stdout + result.stderr
    assert config.read_bytes() == before, "a refusal writes nothing"
    listed = json.loads(cli("list", "--json").stdout)
    assert [s["name"] for s in listed] == ["keep"]


def test_json_mode_reports_line_and_column(config: Path, tmp_path: Path) -> None:
    BAD_FILES["latin-1"](tmp_path)
    result = cli("add-json", str(tmp_path / "latin.json"), "--json")
    report = json.loads(result.stdout)
    assert report["success"] is False and (report["line"], report["column"]) == (1, 21)


def test_stdin_bytes_are_decoded_by_the_same_layer(config: Path) -> None:
    result = run_cli("add-json", "-", stdin=b'{"mcpServers": {"a": {"command": "\xff"}}}')
    assert result.returncode == 2
    assert "standard input is not valid UTF-8: byte 0xff at offset 34" in result.stderr


def test_args_that_nest_too_deep_are_refused(config: Path) -> None:
    result = cli("call", "keep", "tool", "--args", "[" * 3000)
    assert result.returncode == 2
    assert "--args nests arrays/objects deeper than 100 levels" in result.stderr
    assert "Traceback" not in result.stderr


def test_an_unexpected_error_is_one_line_with_the_log_and_debug_shows_the_traceback(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "data-is-a-file"
    not_a_folder.write_text("")
    env = {"ELFTIA_DATA_DIR": str(not_a_folder)}
    result = cli("list", env=env)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: 'list' failed unexpectedly: FileExistsError")
    assert "run again with --debug" in lines[0]
    debug = cli("list", "--debug", env=env)
    assert debug.returncode == 1 and "Traceback (most recent call last)" in debug.stderr


def test_the_crash_log_gets_the_traceback(isolated_data_dir: Path) -> None:
    from elftia_desktop.cli.crash import crash_log_path, report_crash

    try:
        {}["missing"]
    except KeyError as exc:
        code = report_crash(__import__("argparse").Namespace(command="list", json=False), exc, debug=False)
    assert code == 1
    log = crash_log_path().read_text()
    assert "elftia-mcp list" in log and "KeyError: 'missing'" in log and "Traceback" in log
