"""Helpers for the pool host tests: the host's status, the server processes of a data folder, the CLI."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.client.session import ClientRequestContext

from elftia_desktop.host import client
from tests.gateway.gateway_helpers import REPO, add_stdio, gateway_env, open_catalog, processes_with_env
from tests.helpers.cli_runner import CliResult, run_cli


@dataclass(frozen=True)
class SharedFolders:
    """The data folder and the host socket folder the tests of one module share (``shared_folders``)."""

    data_dir: Path
    host_dir: Path


def add_alpha_and_gamma(data_dir: Path) -> Path:
    """alpha (basic) and gamma (features) in ``data_dir``'s catalog; the folder."""
    catalog = open_catalog(data_dir)
    add_stdio(catalog, "alpha", "basic")
    add_stdio(catalog, "gamma", "features")
    return data_dir


def answering(name: str, asked: list[str]) -> Any:
    """An elicitation callback that notes it was asked and answers ``name``."""

    async def elicit(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(name)
        return types.ElicitResult(action="accept", content={"name": name, "age": 1})

    return elicit


def host_status() -> dict[str, Any] | None:
    """The status of the host of this test's data folder; None when none runs."""
    return client.control("status")


def server_pids(data_dir: Path, script: str) -> list[int]:
    """Live processes running test server ``script`` (e.g. ``basic.py``) for ``data_dir``."""
    found = []
    for pid in processes_with_env(f"ELFTIA_DATA_DIR={data_dir}\0"):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
        except OSError:
            continue
        if state != "Z" and any(part.endswith(script.encode()) for part in cmdline):
            found.append(pid)
    return found


def elftia_processes(data_dir: Path) -> list[int]:
    """Every live process of this data folder: hosts, gateways, servers."""
    return [pid for pid in processes_with_env(f"ELFTIA_DATA_DIR={data_dir}\0") if _live(pid)]


def _live(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return False


def cli(
    data_dir: Path, *args: str, env: dict[str, str] | None = None, process: bool = False
) -> CliResult | subprocess.CompletedProcess[str]:
    """``elftia-mcp ARGS`` on ``data_dir`` (``env``: variables set or changed), in this test's process.

    The command attaches to the host (or starts it) exactly as from a shell: the host and the
    servers are real processes either way; only the command's own Python start is saved.
    ``process``: a fresh process instead, for what only one shows (a note said once per process,
    a command that would stay running), given two minutes.
    """
    if not process:
        return run_cli(*args, env=env, data_dir=data_dir)
    return subprocess.run(
        [sys.executable, "-m", "elftia_desktop.cli", *args],
        env=gateway_env(data_dir) | (env or {}),
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
    )
