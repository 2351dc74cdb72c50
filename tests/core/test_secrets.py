"""Secrets: in the keyring (or a 0600 file), referenced from the JSON, removed with the server."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from keyring.backends import fail

from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.errors import SecretStoreError
from elftia_desktop.core.models import McpServerInput
from elftia_desktop.core.secrets import SecretVault, keyring_works, looks_secret
from tests.helpers.memory_keyring import MemoryKeyring

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "ghp_SUPERSECRETVALUE123"


def catalog(tmp_path: Path, backend: object) -> ServerCatalog:
    vault = SecretVault(backend=backend, fallback_path=tmp_path / "secrets.json")  # type: ignore[arg-type]
    return ServerCatalog(ConfigStore(tmp_path / "mcp-config.json"), vault)


def github_input(**extra: object) -> McpServerInput:
    return McpServerInput.model_validate(
        {
            "name": "github",
            "config": {
                "command": "npx",
                "env": {"GITHUB_TOKEN": TOKEN, "LOG_LEVEL": "debug", "FROM_ENV": "${env:HOME}"},
            },
        }
        | extra
    )


def files_containing(folder: Path, needle: str) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


@pytest.mark.parametrize(
    ("name", "secret"),
    [("GITHUB_TOKEN", True), ("api_key", True), ("Authorization", True), ("DB_PASSWORD", True), ("PATH", False)],
)
def test_secret_names(name: str, secret: bool) -> None:
    assert looks_secret(name) is secret


def test_secret_env_goes_to_keyring_and_json_keeps_a_reference(tmp_path: Path) -> None:
    backend = MemoryKeyring()
    servers = catalog(tmp_path, backend)
    record = servers.add(github_input())
    assert record is not None
    assert record.config.env == {
        "GITHUB_TOKEN": "${secret:GITHUB_TOKEN}",
        "LOG_LEVEL": "debug",
        "FROM_ENV": "${env:HOME}",
    }
    assert backend.values == {("elftia", f"{record.id}:env:GITHUB_TOKEN"): TOKEN}
    assert files_containing(tmp_path, TOKEN) == []
    env, headers = servers.vault.resolve(record)
    assert env["GITHUB_TOKEN"] == TOKEN and env["LOG_LEVEL"] == "debug" and headers == {}


def test_user_marked_header_is_secret(tmp_path: Path) -> None:
    backend = MemoryKeyring()
    server = McpServerInput.model_validate(
        {
            "name": "remote",
            "type": "http",
            "config": {"url": "https://mcp.example.com/mcp", "headers": {"X-Tenant": "acme-private"}},
            "secretKeys": ["X-Tenant"],
        }
    )
    record = catalog(tmp_path, backend).add(server)
    assert record is not None
    assert record.config.headers == {"X-Tenant": "${secret:X-Tenant}"}
    assert backend.values[("elftia", f"{record.id}:header:X-Tenant")] == "acme-private"


def test_removing_a_server_removes_its_secrets(tmp_path: Path) -> None:
    backend = MemoryKeyring()
    servers = catalog(tmp_path, backend)
    record = servers.add(github_input())
    assert record is not None and backend.values
    servers.remove(record.id)
    assert backend.values == {}


def test_update_replaces_and_drops_secrets(tmp_path: Path) -> None:
    backend = MemoryKeyring()
    servers = catalog(tmp_path, backend)
    record = servers.add(github_input())
    assert record is not None
    servers.update(record.id, {"config": {"env": {"GITHUB_TOKEN": "new-token"}}})
    assert backend.values == {("elftia", f"{record.id}:env:GITHUB_TOKEN"): "new-token"}
    servers.update(record.id, {"config": {"env": {}}})
    assert backend.values == {}


def test_missing_secret_is_a_clear_error(tmp_path: Path) -> None:
    backend = MemoryKeyring()
    servers = catalog(tmp_path, backend)
    record = servers.add(github_input())
    assert record is not None
    backend.values.clear()
    with pytest.raises(SecretStoreError, match="environment variable GITHUB_TOKEN is missing"):
        servers.vault.resolve(record)


def test_without_a_keyring_secrets_go_to_a_private_file(tmp_path: Path) -> None:
    servers = catalog(tmp_path, fail.Keyring())
    assert keyring_works(fail.Keyring()) is False
    assert servers.vault.warning is not None and "secrets.json" in servers.vault.warning
    record = servers.add(github_input())
    assert record is not None
    secrets_file = tmp_path / "secrets.json"
    assert stat.S_IMODE(os.stat(secrets_file).st_mode) == 0o600
    assert files_containing(tmp_path, TOKEN) == [secrets_file]
    assert servers.vault.resolve(record)[0]["GITHUB_TOKEN"] == TOKEN
    servers.remove(record.id)
    assert json.loads(secrets_file.read_text()) == {}


REAL_KEYRING_SCRIPT = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    import keyring
    from keyring.backends.SecretService import Keyring
    from elftia_desktop.core.catalog import ServerCatalog
    from elftia_desktop.core.config_store import ConfigStore
    from elftia_desktop.core.models import McpServerInput
    from elftia_desktop.core.secrets import SecretVault
    folder = Path(sys.argv[1])
    backend = Keyring()
    vault = SecretVault(backend=backend, fallback_path=folder / "secrets.json")
    servers = ServerCatalog(ConfigStore(folder / "mcp-config.json"), vault)
    record = servers.add(McpServerInput(name="gh", config={"command": "npx", "env": {"GITHUB_TOKEN": sys.argv[2]}}))
    stored = backend.get_password("elftia", f"{record.id}:env:GITHUB_TOKEN")
    print(json.dumps({"uses_keyring": vault.uses_keyring, "stored": stored, "env": record.config.env}))
    """
)


@pytest.mark.skipif(not shutil.which("gnome-keyring-daemon"), reason="gnome-keyring is not installed")
@pytest.mark.skipif(not shutil.which("dbus-run-session"), reason="dbus-run-session is not installed")
def test_real_secret_service_keeps_the_value_out_of_every_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    data = tmp_path / "data"
    data.mkdir()
    shell = (
        "printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null && "
        f'exec "{sys.executable}" -c "$0" "$1" "$2"'
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHON_KEYRING_BACKEND"}
    env |= {"HOME": str(home), "XDG_DATA_HOME": str(home / ".local/share"), "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        ["dbus-run-session", "--", "sh", "-c", shell, REAL_KEYRING_SCRIPT, str(data), TOKEN],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    assert outcome == {"uses_keyring": True, "stored": TOKEN, "env": {"GITHUB_TOKEN": "${secret:GITHUB_TOKEN}"}}
    assert files_containing(data, TOKEN) == []
    assert files_containing(home, TOKEN) == []  # the keyring file itself is encrypted
    assert not (data / "secrets.json").exists()
