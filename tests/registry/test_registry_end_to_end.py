"""End to end with real packages: install from the test registry, trust, call a tool.

``@modelcontextprotocol/server-everything`` runs with ``npx`` (downloaded from npm on first use),
``mcp-server-time`` with the ``uvx`` of the test extras (from PyPI), and a ``.mcpb`` package is
downloaded from the registry, checked and unpacked. Each step is the real ``elftia-mcp`` process.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.registry.conftest import BUNDLE_ENTRY
from tests.registry.registry_server import LocalRegistry

pytestmark = pytest.mark.timeout(400)


def _cli(data: Path, registry: LocalRegistry, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SHELL"}
    env |= {
        "ELFTIA_DATA_DIR": str(data),
        "ELFTIA_REGISTRY_URL": registry.url,
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "PATH": f"{Path(sys.executable).parent}:{env.get('PATH', '')}",
    }
    return subprocess.run(
        [sys.executable, "-m", "elftia_desktop.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


def _install_trust_call(
    data: Path, registry: LocalRegistry, entry: str, name: str, tool: str, arguments: dict[str, str], *values: str
) -> str:
    installed = _cli(data, registry, "registry", "install", entry, "--name", name, *values)
    assert installed.returncode == 0, installed.stderr
    refused = _cli(data, registry, "call", name, tool, "--args", json.dumps(arguments))
    assert refused.returncode != 0 and "trust" in (refused.stderr + refused.stdout).lower()
    trusted = _cli(data, registry, "trust", name, "--yes")
    assert trusted.returncode == 0, trusted.stderr
    called = _cli(data, registry, "call", name, tool, "--args", json.dumps(arguments))
    assert called.returncode == 0, called.stderr
    return called.stdout


@pytest.mark.network
@pytest.mark.skipif(shutil.which("npx") is None, reason="needs node (npx)")
def test_npm_everything(registry: LocalRegistry, tmp_path: Path) -> None:
    out = _install_trust_call(
        tmp_path,
        registry,
        "io.github.modelcontextprotocol/server-everything",
        "everything",
        "echo",
        {"message": "hi reg"},
    )
    assert "hi reg" in out


@pytest.mark.network
def test_pypi_time(registry: LocalRegistry, tmp_path: Path) -> None:
    out = _install_trust_call(
        tmp_path,
        registry,
        "io.github.modelcontextprotocol/server-time",
        "time",
        "get_current_time",
        {"timezone": "Asia/Tokyo"},
        "--value",
        "local-timezone=UTC",
    )
    assert "Asia/Tokyo" in out and "datetime" in out


def test_mcpb_package(registry: LocalRegistry, tmp_path: Path) -> None:
    out = _install_trust_call(
        tmp_path, registry, BUNDLE_ENTRY, "notes", "whoami", {}, "--value", "api_key=sk-abcdef", "--value", "folders=/x"
    )
    assert "key=set len=9 folders=['/x']" in out
