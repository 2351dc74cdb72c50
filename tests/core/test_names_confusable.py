"""Server names through ``elftia-mcp``: NFKC, no bidi or zero-width characters, no look-alike duplicates;
install links with percent-escapes that are not UTF-8 are refused."""

from __future__ import annotations

import json

import pytest

from elftia_desktop.core.install_link import InstallLinkError, parse_install_link
from tests.cli.test_servers import cli


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("Keep\u202e", "name: contains the invisible character U+202E (RIGHT-TO-LEFT OVERRIDE) at position 5"),
        ("Ke\u200bep", "name: contains the invisible character U+200B (ZERO WIDTH SPACE) at position 3"),
    ],
)
def test_invisible_characters_are_refused(name: str, message: str) -> None:
    result = cli("add", name, "--", "npx", "pkg")
    assert result.returncode == 2 and message in result.stderr


def test_full_width_and_look_alike_duplicates_are_refused_naming_the_existing_server() -> None:
    assert cli("add", "Keep", "--", "npx", "pkg").returncode == 0
    full_width = cli("add", "\uff2b\uff25\uff25\uff30", "--", "npx", "pkg")
    assert full_width.returncode == 2 and 'name: a server named "Keep" exists already' in full_width.stderr
    cyrillic = cli("add", "K\u0435ep", "--", "npx", "pkg")
    assert cyrillic.returncode == 2
    assert 'name: "K\u0435ep" looks the same as the existing server "Keep"; choose another name' in cyrillic.stderr
    assert [r["name"] for r in json.loads(cli("list", "--json").stdout)] == ["Keep"]
    assert cli("add", "notes", "--", "npx", "pkg").returncode == 0
    renamed = cli("update", "notes", "--name", "KEEP")
    assert renamed.returncode == 2 and 'a server named "Keep" exists already' in renamed.stderr


def test_full_width_name_is_stored_normalised() -> None:
    cli("add", "\uff26\uff49\uff4c\uff45\uff53", "--", "npx", "pkg")
    assert json.loads(cli("list", "--json").stdout)[0]["name"] == "Files"


def test_install_link_with_invalid_utf8_escapes_is_refused() -> None:
    link = "elftia://install-mcp?name=K%FFeep&config=%7B%22command%22%3A%22npx%22%7D"
    with pytest.raises(InstallLinkError) as caught:
        parse_install_link(link)
    assert str(caught.value) == (
        "The link's query has percent-escapes that are not UTF-8 text (%FF); re-create the link with the text "
        "encoded as UTF-8"
    )
    assert parse_install_link(link.replace("%FF", "")).name == "Keep"


def test_log_lines_show_control_characters_escaped() -> None:
    import logging

    from elftia_desktop.core.text_rules import VisibleFormatter

    record = logging.LogRecord("g", logging.WARNING, __file__, 1, "%s left out", ("evil\nfake: line\u202e",), None)
    assert VisibleFormatter("gateway: %(message)s").format(record) == "gateway: evil\\nfake: line\\u202e left out"
