"""``elftia-mcp registry search|show|install``, ``outdated``, ``update-server``, ``add-bundle`` on the test registry.

In process (so the in-memory keyring shows where secrets went); every bad input exits with its
own message and leaves the data folder as it was.
"""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import pytest

from elftia_desktop.cli import main
from elftia_desktop.core import login_env
from tests.helpers.memory_keyring import MemoryKeyring
from tests.registry.conftest import BUNDLE_ENTRY, bundle_entry
from tests.registry.mcpb_builder import build_bundle, sign_bundle
from tests.registry.registry_server import LocalRegistry

EVERYTHING = "io.github.modelcontextprotocol/server-everything"


@pytest.fixture(autouse=True)
def plain_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runtimes are looked up on this process's PATH (with the venv's uvx), not a login shell's."""
    monkeypatch.delenv("SHELL", raising=False)
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin")
    login_env.reset_cache()


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _servers(data: Path) -> list[dict[str, object]]:
    return json.loads((data / "mcp-config.json").read_text())["mcpServers"]


def test_search_and_show(registry: LocalRegistry, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "registry", "search", "weather")
    assert code == 0 and "io.github.example/weather-oci" in out and "docker" in out
    code, out, _ = _run(capsys, "registry", "search", "--json")
    names = {item["server"]["name"] for item in json.loads(out)}
    assert EVERYTHING in names and "io.github.example/gone-server" in names
    code, out, _ = _run(capsys, "registry", "show", "io.github.example/weather-oci", "--json")
    shown = json.loads(out)
    assert shown["command"] == (
        "docker run -i --rm --network bridge -e WEATHER_API_KEY -e WEATHER_UNITS docker.io/example/weather-mcp:1.2.0"
    )
    assert [(i["key"], i["required"], i["secret"]) for i in shown["inputs"]] == [
        ("WEATHER_API_KEY", True, True),
        ("WEATHER_UNITS", False, False),
    ]
    code, out, _ = _run(capsys, "registry", "show", EVERYTHING, "--version", "2025.9.25")
    assert code == 0 and "npx -y @modelcontextprotocol/server-everything@2025.9.25" in out


def test_missing_required_input_exits_2_naming_it(
    registry: LocalRegistry, isolated_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _files(isolated_data_dir)
    code, _, err = _run(capsys, "registry", "install", "io.github.example/weather-oci")
    assert code == 2
    assert "Missing required input: WEATHER_API_KEY (API key of the weather service)" in err
    assert not (isolated_data_dir / "mcp-config.json").exists()
    assert _files(isolated_data_dir).keys() <= before.keys() | {"settings.json.lock"}


def test_secret_input_goes_to_the_keyring_never_the_data_folder(
    registry: LocalRegistry, isolated_data_dir: Path, memory_keyring: MemoryKeyring, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(
        capsys, "registry", "install", "io.github.example/weather-oci", "--value", "WEATHER_API_KEY=k-secret-4711"
    )
    assert code == 0, err
    assert "Added weather-oci (untrusted)" in out and "elftia-mcp trust weather-oci" in out
    assert not any(b"k-secret-4711" in data for data in _files(isolated_data_dir).values())
    assert "k-secret-4711" in memory_keyring.values.values()
    [server] = _servers(isolated_data_dir)
    assert server["isTrusted"] is False and server["installSource"] == "registry"
    assert server["config"]["env"] == {"WEATHER_API_KEY": "${secret:WEATHER_API_KEY}", "WEATHER_UNITS": "metric"}
    assert server["registryOrigin"] == {
        "registry": registry.url,
        "name": "io.github.example/weather-oci",
        "version": "1.2.0",
        "package": "oci",
        "inputs": {"WEATHER_UNITS": "metric"},
    }


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["io.github.example/cargo-server"], 2, "registryType 'cargo' is unknown"),
        (["io.github.example/old-server"], 2, "(Replaced by io.github.example/new-server); it is not installed"),
        (["io.github.example/gone-server"], 2, "is deleted in"),
        (["com.example/tenant-remote", "--value", "tenant"], 2, "--value 'tenant': expected KEY=VALUE"),
        (["io.github.nobody/nothing"], 1, "not found (HTTP 404)"),
    ],
)
def test_bad_installs_write_nothing(
    registry: LocalRegistry,
    isolated_data_dir: Path,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    code: int,
    message: str,
) -> None:
    got, _, err = _run(capsys, "registry", "install", *argv)
    assert (got, message in err) == (code, True), err
    assert not (isolated_data_dir / "mcp-config.json").exists()


@pytest.mark.parametrize(("mode", "message"), [("html", "answered with an HTML page"), ("malformed", "not valid JSON")])
def test_bad_registry_exits_1(
    registry: LocalRegistry, capsys: pytest.CaptureFixture[str], mode: str, message: str
) -> None:
    registry.mode = mode
    code, _, err = _run(capsys, "registry", "search", "x")
    assert code == 1 and message in err


def test_registry_down_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    code, _, err = _run(capsys, "registry", "search", "x", "--registry", f"http://127.0.0.1:{port}")
    assert code == 1 and "cannot be reached" in err


def test_mcpb_package_is_downloaded_verified_and_unpacked(
    registry: LocalRegistry, isolated_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(capsys, "registry", "install", BUNDLE_ENTRY, "--value", "api_key=sk-777", "--json")
    assert code == 0, err
    server = json.loads(out)["server"]
    assert server["registryOrigin"]["package"] == "mcpb" and server["isTrusted"] is False
    folder = isolated_data_dir / "bundles" / "bundled-notes-1.4.0"
    assert (folder / "server" / "main.py").is_file()
    assert server["config"]["cwd"] == str(folder)
    assert not any(b"sk-777" in data for data in _files(isolated_data_dir).values())


def test_sha_mismatch_installs_nothing(
    registry: LocalRegistry, isolated_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    registry.publish(bundle_entry(registry.url, "0" * 64, version="1.4.0"))
    code, _, err = _run(capsys, "registry", "install", BUNDLE_ENTRY, "--value", "api_key=x")
    assert code == 1
    assert "SHA-256 is " in err and f"but the registry published {'0' * 64}" in err
    assert not (isolated_data_dir / "bundles").exists() and not (isolated_data_dir / "mcp-config.json").exists()


def test_outdated_and_update_server_keep_inputs(
    registry: LocalRegistry, isolated_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["registry", "install", "io.github.modelcontextprotocol/server-time", "--value", "local-timezone=Asia/Tokyo"]
    assert _run(capsys, *argv)[0] == 0
    assert _run(capsys, "trust", "Time", "--yes")[0] == 0
    code, out, _ = _run(capsys, "outdated")
    assert code == 0 and "up to date" in out

    newer = json.loads(json.dumps(registry.latest()["io.github.modelcontextprotocol/server-time"].server))
    newer["version"] = newer["packages"][0]["version"] = "2026.11.2"
    registry.publish(newer)
    code, out, _ = _run(capsys, "outdated", "--json")
    assert json.loads(out) == [
        {
            "name": "Time",
            "entry": "io.github.modelcontextprotocol/server-time",
            "current": "2026.10.19",
            "latest": "2026.11.2",
        }
    ]
    code, out, err = _run(capsys, "update-server", "Time")
    assert code == 0, err
    assert "2026.10.19 → 2026.11.2" in out and "untrusted until you trust it again" in out
    [server] = _servers(isolated_data_dir)
    assert server["config"]["args"] == ["mcp-server-time==2026.11.2", "--local-timezone", "Asia/Tokyo"]
    assert server["isTrusted"] is False and server["registryOrigin"]["version"] == "2026.11.2"


def test_update_keeps_the_secret_in_the_keyring(
    registry: LocalRegistry, isolated_data_dir: Path, memory_keyring: MemoryKeyring, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["registry", "install", "com.example/tenant-remote", "--value", "tenant=eu", "--value", "api_token=tok-1"]
    assert _run(capsys, *argv)[0] == 0
    newer = json.loads(json.dumps(registry.latest()["com.example/tenant-remote"].server))
    newer["version"] = "3.1.0"
    registry.publish(newer)
    code, _, err = _run(capsys, "update-server", "Tenant Remote")
    assert code == 0, err
    [server] = _servers(isolated_data_dir)
    assert server["config"]["headers"] == {"Authorization": "${secret:Authorization}"}
    assert server["config"]["url"] == "https://eu.mcp.example.com/mcp"
    assert "Bearer tok-1" in memory_keyring.values.values()


def test_add_bundle(isolated_data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = build_bundle(tmp_path / "notes.mcpb")
    sign_bundle(path)
    code, out, err = _run(capsys, "add-bundle", str(path), "--value", "api_key=sk-1", "--value", "folders=/a,/b")
    assert code == 0, err
    assert "Bundled Notes 1.4.0 by Ada Example" in out
    assert "Signature: Signed by Ada Example Signing, but the certificate is not trusted" in out
    assert "Tools: whoami" in out and "Added Bundled Notes (untrusted)" in out
    [server] = _servers(isolated_data_dir)
    assert server["installSource"] == "bundle" and server["config"]["args"][-2:] == ["/a", "/b"]


def test_removing_a_bundle_server_deletes_its_unpacked_folder(
    isolated_data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = build_bundle(tmp_path / "notes.mcpb")
    assert _run(capsys, "add-bundle", str(path), "--value", "api_key=k1")[0] == 0
    assert _run(capsys, "add-bundle", str(path), "--value", "api_key=k2", "--name", "Notes two")[0] == 0
    bundles = isolated_data_dir / "bundles"
    assert sorted(p.name for p in bundles.iterdir()) == ["bundled-notes-1.4.0", "bundled-notes-1.4.0-2"]
    code, _, err = _run(capsys, "remove", "Notes two")
    assert code == 0, err
    assert sorted(p.name for p in bundles.iterdir()) == ["bundled-notes-1.4.0"], "the other install's files stay"
    assert [s["name"] for s in _servers(isolated_data_dir)] == ["Bundled Notes"]


def test_add_bundle_bad_file_exits_2(
    isolated_data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "evil.mcpb"
    path.write_bytes(b"PK not really")
    code, _, err = _run(capsys, "add-bundle", str(path))
    assert code == 2 and "evil.mcpb is not a .mcpb bundle: it is not a zip file" in err
    assert not (isolated_data_dir / "bundles").exists()


def test_missing_runtime_is_named_with_how_to_install_it(
    registry: LocalRegistry, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    login_env.reset_cache()
    code, out, _ = _run(capsys, "registry", "show", "io.github.modelcontextprotocol/server-time", "--json")
    assert json.loads(out)["runtimeMissing"] == "needs uvx, which is not installed: elftia-mcp install-dep uvx"
    code, out, err = _run(capsys, "registry", "install", "io.github.modelcontextprotocol/server-time")
    assert code == 0 and "warning: uvx is not installed; the server cannot start until it is" in err
    assert "elftia-mcp install-dep uvx" in err and "Added Time (untrusted)" in out


def test_a_second_install_under_a_taken_name_loses_nothing(
    isolated_data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = build_bundle(tmp_path / "notes.mcpb")
    assert _run(capsys, "add-bundle", str(path), "--value", "api_key=k1")[0] == 0
    first = isolated_data_dir / "bundles" / "bundled-notes-1.4.0"
    before = _files(first)
    code, _, err = _run(capsys, "add-bundle", str(path), "--value", "api_key=k2")
    assert code == 2 and 'a server named "Bundled Notes" exists already' in err
    assert _files(first) == before
    assert sorted(p.name for p in (isolated_data_dir / "bundles").iterdir()) == ["bundled-notes-1.4.0"]
    code, _, err = _run(capsys, "add-bundle", str(path), "--value", "api_key=k3", "--name", "Notes two")
    assert code == 0, err
    [_, second] = _servers(isolated_data_dir)
    assert second["config"]["cwd"] == str(isolated_data_dir / "bundles" / "bundled-notes-1.4.0-2")
