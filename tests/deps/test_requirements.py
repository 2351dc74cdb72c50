"""The runtime table: complete entries, name mapping, version parsing and comparison."""

from __future__ import annotations

import pytest

from elftia_desktop.deps.requirements import (
    RUNTIMES,
    command_name,
    instructions_for,
    meets_minimum,
    parse_version,
    runtime_for,
)


@pytest.mark.parametrize("runtime", RUNTIMES, ids=lambda r: r.name)
def test_every_runtime_says_why_and_how_on_every_os(runtime) -> None:
    assert runtime.reason and runtime.homepage.startswith("https://")
    assert set(runtime.instructions) == {"linux", "macos", "windows"}
    for os_name in ("linux", "macos", "windows"):
        text = instructions_for(runtime, os_name)
        assert text.startswith(runtime.title) and runtime.homepage in text


def test_table_covers_the_commands_servers_use() -> None:
    commands = {c for r in RUNTIMES for c in r.commands}
    assert {"npx", "node", "uvx", "uv", "python", "python3", "bun", "bunx", "docker", "deno", "pipx"} <= commands


def test_node_needs_18_and_only_pypi_or_npm_packages_are_installable() -> None:
    node = runtime_for("node")
    assert node is not None and node.minimum == (18,) and node.install is None
    assert {r.name for r in RUNTIMES if r.install} == {"uv", "bun", "deno", "pipx"}
    uv = runtime_for("uvx")
    assert uv is not None and uv.install is not None and (uv.install.index, uv.install.package) == ("pypi", "uv")


@pytest.mark.parametrize(
    ("command", "runtime"),
    [
        ("npx", "node"),
        ("npm", "node"),
        (r"C:\Program Files\nodejs\npx.cmd", "node"),
        ("/usr/local/bin/node", "node"),
        ("uvx", "uv"),
        ("UV.EXE", "uv"),
        ("python3.12", "python"),
        ("python", "python"),
        ("pythonw", "python"),
        ("py", "python"),
        ("bunx", "bun"),
        ("docker", "docker"),
        ("deno", "deno"),
        ("pipx", "pipx"),
    ],
)
def test_runtime_for_maps_names_and_paths(command: str, runtime: str) -> None:
    found = runtime_for(command)
    assert found is not None and found.name == runtime


def test_unknown_commands_have_no_runtime() -> None:
    assert runtime_for("my-server") is None
    assert runtime_for("/opt/x/pythonista") is None
    assert command_name(r"C:\tools\Foo.BAT") == "foo"


@pytest.mark.parametrize(
    ("text", "version"),
    [
        ("v20.20.2\n", (20, 20, 2)),
        ("Python 3.11.7", (3, 11, 7)),
        ("uv 0.13.9 (x86_64-unknown-linux-gnu)", (0, 13, 9)),
        ("Docker version 28.2.2, build e6534b4", (28, 2, 2)),
        ("deno 2.1", (2, 1)),
        ("no digits here", None),
    ],
)
def test_parse_version(text: str, version: tuple[int, ...] | None) -> None:
    assert parse_version(text) == version


def test_meets_minimum_compares_numerically() -> None:
    assert meets_minimum((18,), (18,))
    assert meets_minimum((20, 1, 0), (18,))
    assert not meets_minimum((16, 20, 2), (18,))
    assert meets_minimum((3, 10), (3, 10, 0))
    assert not meets_minimum((3, 9, 18), (3, 10))
    assert not meets_minimum(None, (18,))
    assert meets_minimum(None, None)
