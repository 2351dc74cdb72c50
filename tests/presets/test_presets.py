"""presets.json: every preset validates, asks for what it needs, and fills a valid server."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

from elftia_desktop.core.errors import ConfigError
from elftia_desktop.core.models import McpServerInput
from elftia_desktop.core.presets import (
    McpPreset,
    PresetValuesMissing,
    find_preset,
    load_presets,
    missing_values,
    parse_presets,
    preset_to_input,
)
from elftia_desktop.core.resources import resource_path
from elftia_desktop.deps.command_map import runtime_command
from elftia_desktop.deps.requirements import runtime_for

PRESETS = load_presets()
_LEFTOVER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")


def _values(preset: McpPreset) -> tuple[dict[str, str], dict[str, str]]:
    values = {a.key: ("~/work" if a.is_path else f"value-of-{a.key}") for a in preset.arguments if a.required}
    env = {name: f"secret-{name}" for name in preset.required_env}
    return values, env


def test_the_file_is_found_and_lists_the_expected_servers() -> None:
    assert Path(str(resource_path("presets.json"))).name == "presets.json"
    ids = {p.id for p in PRESETS}
    official = {"filesystem", "memory", "fetch", "time", "git", "everything", "sequential-thinking"}
    assert {"builtin-clock", "builtin-notes", *official} <= ids
    assert {"github", "brave-search", "playwright", "context7", "sqlite", "postgres"} <= ids


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.id)
def test_missing_values_are_each_named(preset: McpPreset) -> None:
    required = [*preset.required_values, *preset.required_env]
    assert missing_values(preset, {}, {}) == (preset.required_values, preset.required_env)
    if not required:
        preset_to_input(preset)
        return
    with pytest.raises(PresetValuesMissing) as caught:
        preset_to_input(preset)
    assert caught.value.missing == required
    for name in required:
        assert name in str(caught.value)


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.id)
def test_filled_preset_is_a_valid_server(preset: McpPreset) -> None:
    values, env = _values(preset)
    server = preset_to_input(preset, values, env)
    again = McpServerInput.model_validate(server.to_json_dict())
    record = again.to_record()
    assert record.type == preset.transport and record.name == preset.name
    texts = [record.config.command or "", *record.config.args, record.config.url or "", *record.config.headers.values()]
    assert not any(_LEFTOVER.search(t) for t in texts), texts
    secret_env = {e.name for e in preset.env if e.secret and e.name in env}
    assert secret_env <= set(server.secret_keys)
    if preset.transport.value == "stdio":
        runtime = runtime_for(runtime_command(preset.command or "", preset.args))
        assert runtime is not None and runtime.name == preset.runtime
    else:
        assert preset.runtime is None and record.config.url and record.config.url.startswith("https://")


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.id)
def test_every_preset_is_described(preset: McpPreset) -> None:
    assert preset.description and "\n" not in preset.description and len(preset.description) <= 120
    assert preset.category
    if preset.install_source != "builtin":
        assert preset.homepage and preset.homepage.startswith("https://")
    for argument in preset.arguments:
        assert argument.label


def test_builtin_presets_run_this_python() -> None:
    for preset_id, module in (("builtin-clock", "clock"), ("builtin-notes", "notes")):
        preset = find_preset(PRESETS, preset_id)
        server = preset_to_input(preset)
        assert server.install_source == "builtin" and server.is_trusted
        assert server.config.command == sys.executable
        assert server.config.args == ["-m", f"elftia_desktop.builtin_servers.{module}"]
        assert importlib.util.find_spec(server.config.args[1]) is not None
    frozen = preset_to_input(find_preset(PRESETS, "builtin-clock"), python="/opt/Elftia/elftia")
    assert frozen.config.command == "/opt/Elftia/elftia"


def test_paths_are_expanded_and_optional_flags_dropped() -> None:
    fs = preset_to_input(find_preset(PRESETS, "filesystem"), {"directory": "~/Documents"})
    assert fs.config.args[-1] == str(Path("~/Documents").expanduser())
    time_plain = preset_to_input(find_preset(PRESETS, "time"))
    assert time_plain.config.args == ["mcp-server-time"]
    time_tz = preset_to_input(find_preset(PRESETS, "Time"), {"timezone": "Europe/Berlin"})
    assert time_tz.config.args == ["mcp-server-time", "--local-timezone=Europe/Berlin"]


def test_github_token_becomes_a_secret_header() -> None:
    server = preset_to_input(find_preset(PRESETS, "github"), {"github_token": "ghp_x"})
    assert server.type.value == "http" and server.config.headers == {"Authorization": "Bearer ghp_x"}
    assert server.secret_keys == ["Authorization"] and not server.is_trusted


def test_unknown_values_and_presets_are_named() -> None:
    with pytest.raises(ConfigError, match=r"has no value colour \(its values: directory\)"):
        preset_to_input(find_preset(PRESETS, "filesystem"), {"directory": "/x", "colour": "red"})
    with pytest.raises(ConfigError, match=r'no preset named "nope"; presets: builtin-clock'):
        find_preset(PRESETS, "nope")


def _one(**fields: object) -> str:
    base: dict[str, object] = {
        "id": "x",
        "name": "X",
        "description": "d",
        "category": "c",
        "command": "npx",
        "homepage": "https://e.org",
    }
    return json.dumps({"version": 1, "presets": [base | fields]})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"presets": [\n  {"id": "x",,}]}', "line 2 column 14"),
        (_one(args=["{missing}"]), "placeholder {missing} names no argument"),
        (_one(colour="red"), "colour"),
        (_one(command=None), "a stdio preset needs a command"),
        (_one(transport="http", command=None), "a http preset needs a url"),
        (
            _one(args=["{t}"], arguments=[{"key": "t", "label": "T", "secret": True}]),
            'secret argument "t" may only be used in headers',
        ),
        (_one(env=[{"name": "1BAD"}]), "not a valid variable name"),
        (_one(description="two\nlines"), "one line"),
    ],
)
def test_broken_preset_files_are_reported(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        parse_presets(text)


def test_duplicate_ids_are_rejected() -> None:
    data = json.loads(_one())
    data["presets"].append(data["presets"][0])
    with pytest.raises(ConfigError, match="repeated: x"):
        parse_presets(json.dumps(data))
