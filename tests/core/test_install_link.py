"""Issue 15: ``elftia://install-mcp`` links parse to one untrusted server, or say what is wrong."""

from __future__ import annotations

import base64
import json
from urllib.parse import quote

import pytest

from elftia_desktop.core.install_link import (
    InstallLinkError,
    find_link,
    is_install_link,
    make_install_link,
    parse_install_link,
)
from elftia_desktop.core.models import McpServerTransport

ENTRY = {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "env": {"LOG": "1"}}


def b64url(value: object, pad: bool = False) -> str:
    text = base64.urlsafe_b64encode(json.dumps(value).encode()).decode()
    return text if pad else text.rstrip("=")


def test_base64url_entry_becomes_an_untrusted_protocol_server() -> None:
    server = parse_install_link(f"elftia://install-mcp?name=memory&config={b64url(ENTRY)}")
    assert server.name == "memory"
    assert server.type is McpServerTransport.STDIO
    assert server.config.command == "npx"
    assert server.config.args == ["-y", "@modelcontextprotocol/server-memory"]
    assert server.config.env == {"LOG": "1"}
    assert server.is_trusted is False
    assert server.install_source == "protocol"


def test_padded_base64_and_standard_alphabet_are_accepted() -> None:
    entry = {"url": "https://example.com/mcp?a=~~~", "type": "http"}
    padded = base64.b64encode(json.dumps(entry).encode()).decode()
    server = parse_install_link(f"elftia://install-mcp?name=remote&config={quote(padded, safe='')}")
    assert server.type is McpServerTransport.HTTP
    assert server.config.url == "https://example.com/mcp?a=~~~"


def test_plain_mcpservers_json_form() -> None:
    config = {"mcpServers": {"weather": {"url": "https://weather.example/sse", "type": "sse"}}}
    server = parse_install_link(f"elftia://install-mcp?config={quote(json.dumps(config))}")
    assert (server.name, server.type, server.config.url) == (
        "weather",
        McpServerTransport.SSE,
        config["mcpServers"]["weather"]["url"],
    )
    assert server.install_source == "protocol" and not server.is_trusted


def test_name_picks_one_of_several_servers() -> None:
    config = {"mcpServers": {"a": {"command": "uvx", "args": ["a"]}, "b": {"command": "uvx", "args": ["b"]}}}
    server = parse_install_link(f"elftia://install-mcp?name=b&config={b64url(config)}")
    assert server.config.args == ["b"]


def test_make_install_link_round_trips() -> None:
    link = make_install_link("my server", ENTRY)
    assert link.startswith("elftia://install-mcp?name=my%20server&config=")
    assert parse_install_link(link).name == "my server"


@pytest.mark.parametrize(
    ("link", "expected"),
    [
        ("https://install-mcp?config=e30", 'the scheme is "https"'),
        ("elftia://add-server?config=e30", 'Unknown link action "add-server"'),
        ("elftia://install-mcp?name=x", "no 'config' parameter"),
        ("elftia://install-mcp?name=x&config=%%%", "neither JSON nor base64url"),
        ("elftia://install-mcp?name=x&config=" + b64url("x")[:-1] + "!", "neither JSON nor base64url"),
        ("elftia://install-mcp?name=x&config=" + quote('{"command": "npx",'), "not valid JSON: Expecting property"),
        ("elftia://install-mcp?config=" + b64url({"command": "npx"}), "no 'name' parameter"),
        ("elftia://install-mcp?name=x&config=" + b64url({"command": "", "type": "stdio"}), "needs a command"),
        ("elftia://install-mcp?name=x&config=" + b64url({"url": "ftp://a"}), "not an absolute http(s) URL"),
        ("elftia://install-mcp?name=x&config=" + b64url({"command": "a", "type": "pigeon"}), "not a transport"),
        ("elftia://install-mcp?name=x&config=" + b64url([1, 2]), "holds no server"),
        (
            "elftia://install-mcp?config=" + b64url({"mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}}}),
            "has 2 servers (a, b)",
        ),
        ("elftia://install-mcp?name=c&config=" + b64url({"mcpServers": {"a": {"command": "a"}}}), "has only: a"),
        ("elftia://install-mcp?name=a&name=b&config=e30", '2 "name" parameters'),
        ("elftia://install-mcp?name=x&config=" + base64.urlsafe_b64encode(b"\xff\xfe{").decode(), "not UTF-8"),
    ],
)
def test_malformed_links_say_what_is_wrong(link: str, expected: str) -> None:
    with pytest.raises(InstallLinkError) as info:
        parse_install_link(link)
    assert expected in str(info.value)


def test_overlong_link_is_refused_before_decoding() -> None:
    with pytest.raises(InstallLinkError, match="at most 64000"):
        parse_install_link("elftia://install-mcp?config=" + "A" * 70_000)


def test_find_link_among_arguments() -> None:
    assert find_link(["--verbose", " elftia://install-mcp?config=e30 "]) == "elftia://install-mcp?config=e30"
    assert find_link(["--verbose"]) is None
    assert is_install_link("ELFTIA:install-mcp") and not is_install_link("https://elftia")


def test_opaque_form_without_slashes() -> None:
    assert parse_install_link(f"elftia:install-mcp?name=m&config={b64url(ENTRY)}").name == "m"
