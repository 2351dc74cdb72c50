"""Install plans from server.json entries: the package that fits, the pinned command, the inputs form."""

from __future__ import annotations

from typing import Any

import pytest

from elftia_desktop.core.models import McpServerTransport
from elftia_desktop.registry.entry import EntryStatus, RegistryEntry, ServerJson
from elftia_desktop.registry.errors import EntryNotInstallable, InputsMissing
from elftia_desktop.registry.plan import plan_install
from tests.registry.registry_server import load_entries

ALL = {"npx": True, "uvx": True, "docker": True, "dnx": True}


def _entry(name_part: str, status: EntryStatus = EntryStatus.ACTIVE) -> RegistryEntry:
    servers = [s for s in load_entries() if name_part in s["name"]]
    return RegistryEntry(server=ServerJson.model_validate(servers[-1]), source="http://reg.test", status=status)


def _entry_of(data: dict[str, Any]) -> RegistryEntry:
    return RegistryEntry(server=ServerJson.model_validate(data), source="http://reg.test")


def test_npm_is_pinned_with_npx() -> None:
    plan = plan_install(_entry("server-everything"), ALL)
    server = plan.to_input("everything", {})
    assert (server.config.command, server.config.args) == (
        "npx",
        ["-y", "@modelcontextprotocol/server-everything@2026.8.31"],
    )
    assert server.is_trusted is False and server.install_source == "registry"
    origin = server.registry_origin
    assert origin is not None
    assert (origin.registry, origin.name, origin.version, origin.package) == (
        "http://reg.test",
        "io.github.modelcontextprotocol/server-everything",
        "2026.8.31",
        "npm",
    )


def test_pypi_is_pinned_with_uvx_and_named_argument_default() -> None:
    plan = plan_install(_entry("server-time"), ALL)
    assert [f.key for f in plan.fields] == ["local-timezone"]
    assert plan.fields[0].default == "Europe/Paris"
    server = plan.to_input("time", {"local-timezone": "Asia/Tokyo"})
    assert server.config.command == "uvx"
    assert server.config.args == ["mcp-server-time==2026.10.19", "--local-timezone", "Asia/Tokyo"]
    assert server.registry_origin is not None and server.registry_origin.inputs == {"local-timezone": "Asia/Tokyo"}


def test_oci_runs_the_tagged_image_and_keeps_the_secret_out_of_the_command() -> None:
    plan = plan_install(_entry("weather-oci"), ALL)
    fields = {f.key: f for f in plan.fields}
    assert fields["WEATHER_API_KEY"].required and fields["WEATHER_API_KEY"].secret
    assert fields["WEATHER_UNITS"].choices == ("metric", "imperial") and fields["WEATHER_UNITS"].default == "metric"
    server = plan.to_input("weather", {"WEATHER_API_KEY": "k-123"})
    assert server.config.command == "docker"
    assert server.config.args == [
        "run", "-i", "--rm", "--network", "bridge",
        "-e", "WEATHER_API_KEY", "-e", "WEATHER_UNITS",
        "docker.io/example/weather-mcp:1.2.0",
    ]  # fmt: skip
    assert server.config.env == {"WEATHER_API_KEY": "k-123", "WEATHER_UNITS": "metric"}
    assert server.secret_keys == ["WEATHER_API_KEY"]
    assert "k-123" not in plan.preview({"WEATHER_API_KEY": "k-123"})


def test_remote_fills_url_variables_and_secret_headers() -> None:
    plan = plan_install(_entry("tenant-remote"), ALL)
    assert plan.kind == "remote"
    assert [(f.key, f.kind, f.required, f.secret) for f in plan.fields] == [
        ("tenant", "variable", True, False),
        ("api_token", "variable", True, True),
        ("X-Org", "header", False, False),
    ]
    assert plan.preview() == "https://<tenant>.mcp.example.com/mcp"
    server = plan.to_input("tenant", {"tenant": "eu", "api_token": "tok-9"})
    assert server.type is McpServerTransport.HTTP
    assert server.config.url == "https://eu.mcp.example.com/mcp"
    assert server.config.headers == {"Authorization": "Bearer tok-9"}
    assert server.secret_keys == ["Authorization"]
    assert server.registry_origin is not None and server.registry_origin.inputs == {"tenant": "eu"}


def test_missing_required_inputs_are_named() -> None:
    plan = plan_install(_entry("tenant-remote"), ALL)
    with pytest.raises(
        InputsMissing, match=r"Missing required input: tenant \(Your tenant's region\); api_token"
    ) as info:
        plan.to_input("tenant", {})
    assert info.value.missing == ["tenant", "api_token"]


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"tenant": "mars", "api_token": "t"}, r"tenant: 'mars' is not one of eu, us"),
        (
            {"tenant": "eu", "api_token": "t", "colour": "red"},
            r"--value colour: this server has no input named 'colour'",
        ),
    ],
)
def test_bad_values_are_named(values: dict[str, str], message: str) -> None:
    with pytest.raises(Exception, match=message):
        plan_install(_entry("tenant-remote"), ALL).to_input("tenant", values)


def test_unknown_registry_type_is_not_installable() -> None:
    with pytest.raises(EntryNotInstallable, match=r"registryType 'cargo' is unknown \(this app installs npm, pypi"):
        plan_install(_entry("cargo-server"), ALL)


def test_deprecated_needs_asking() -> None:
    entry = _entry("old-server", EntryStatus.DEPRECATED)
    with pytest.raises(EntryNotInstallable, match=r"0.3.0 is deprecated in http://reg.test"):
        plan_install(entry, ALL)
    assert plan_install(entry, ALL, allow_inactive=True).kind == "npm"


def test_the_package_whose_runtime_is_present_is_chosen() -> None:
    both = {
        "name": "io.github.example/both",
        "version": "1.0.0",
        "packages": [
            {"registryType": "npm", "identifier": "@example/both", "version": "1.0.0"},
            {"registryType": "pypi", "identifier": "example-both", "version": "1.0.0"},
        ],
        "remotes": [{"type": "streamable-http", "url": "https://both.example.com/mcp"}],
    }
    assert plan_install(_entry_of(both), {"npx": False, "uvx": True}).kind == "pypi"
    assert plan_install(_entry_of(both), {"npx": False, "uvx": False}).kind == "remote"
    no_remote = both | {"remotes": []}
    plan = plan_install(_entry_of(no_remote), {})
    assert (plan.kind, plan.runtime, plan.runtime_missing) == ("npm", "npx", True)


def test_secret_on_the_command_line_is_refused() -> None:
    data = {
        "name": "io.github.example/argkey",
        "version": "1.0.0",
        "packages": [
            {
                "registryType": "npm",
                "identifier": "@example/argkey",
                "version": "1.0.0",
                "packageArguments": [{"type": "named", "name": "--api-key", "isSecret": True, "isRequired": True}],
            }
        ],
    }
    with pytest.raises(EntryNotInstallable, match=r"argument 'api-key' is secret"):
        plan_install(_entry_of(data), ALL)
