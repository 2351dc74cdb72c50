"""Fixtures for the integrations tests: a temporary HOME per platform, sample files, a catalog,
and the real ``claude`` CLI installed from npm into a temporary prefix (once per session)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.secrets import SecretVault
from elftia_desktop.integrations.detector import Environment

SAMPLES = Path(__file__).parent / "samples"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """An empty home folder."""
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


@pytest.fixture
def machine(home: Path) -> Callable[..., Environment]:
    """``machine(platform, **env)``: an ``Environment`` rooted at the temporary home."""

    def make(platform: str = "linux", **env: str) -> Environment:
        return Environment(home, env, platform)

    return make


@pytest.fixture
def place() -> Callable[[str, Path], Path]:
    """``place(sample, path)``: copy a sample file to ``path`` (folders created), return the path."""

    def copy(sample: str, target: Path) -> Path:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SAMPLES / sample, target)
        return target

    return copy


@pytest.fixture
def catalog() -> ServerCatalog:
    """A catalog on the test's data folder, secrets in the in-memory keyring."""
    return ServerCatalog(ConfigStore(), SecretVault())


@pytest.fixture(scope="session")
def claude_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real ``claude`` CLI from npm (``@anthropic-ai/claude-code``) in a temporary prefix."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed, so the claude CLI (@anthropic-ai/claude-code) cannot be installed")
    prefix = tmp_path_factory.mktemp("claude-prefix")
    npm_home = tmp_path_factory.mktemp("npm-home")
    env = os.environ | {"HOME": str(npm_home), "npm_config_update_notifier": "false", "npm_config_fund": "false"}
    done = subprocess.run(
        [npm, "install", "--prefix", str(prefix), "--no-audit", "@anthropic-ai/claude-code"],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert done.returncode == 0, f"npm install @anthropic-ai/claude-code failed:\n{done.stderr[-2000:]}"
    binary = prefix / "node_modules" / ".bin" / "claude"
    assert binary.exists(), f"npm installed no claude binary in {prefix}"
    return binary


@pytest.fixture
def claude_env(tmp_path: Path, claude_bin: Path) -> dict[str, str]:
    """An environment with a fresh HOME whose PATH finds the installed claude first."""
    claude_home = tmp_path / "claude-home"
    claude_home.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_CONFIG_DIR"}
    return env | {
        "HOME": str(claude_home),
        "PATH": f"{claude_bin.parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "DISABLE_AUTOUPDATER": "1",
    }
