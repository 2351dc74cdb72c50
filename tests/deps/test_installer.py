"""Installing runtimes into a tools folder: a REAL install of uv from PyPI, then uvx from there."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from pathlib import Path

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from elftia_desktop.core.login_env import managed_bin_dirs, path_with_managed
from elftia_desktop.core.models import DependencyInstallResult
from elftia_desktop.core.presets import find_preset, load_presets, preset_to_input
from elftia_desktop.deps.checker import DependencyChecker
from elftia_desktop.deps.installer import DependencyInstaller, is_managed

pytestmark = pytest.mark.anyio

SYSTEM_DIRS = os.pathsep.join(d for d in ("/usr/bin", "/bin") if os.path.isdir(d))


def _base_path_without(command: str) -> str:
    """This process's PATH minus folders holding ``command`` (so only the managed one is found)."""
    keep = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d and not shutil.which(command, path=d)]
    return os.pathsep.join(keep)


@pytest.fixture(scope="module")
def installed_uv(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, DependencyInstallResult, list[str]]:
    """uv installed for real from PyPI into a temporary tools folder (network needed)."""
    tools = tmp_path_factory.mktemp("tools")
    lines: list[str] = []
    result = asyncio.run(DependencyInstaller(tools_dir=tools).install("uvx", lines.append))
    return tools, result, lines


@pytest.mark.network
@pytest.mark.timeout(900)
async def test_real_uv_install_streams_progress_and_exposes_uvx(
    installed_uv: tuple[Path, DependencyInstallResult, list[str]],
) -> None:
    tools, result, lines = installed_uv
    assert result.success, f"{result.error}\n" + "\n".join(result.log[-20:])
    assert result.log == lines and any("Successfully installed uv" in line for line in lines)
    assert result.path == str(tools / "bin" / ("uvx.exe" if sys.platform == "win32" else "uvx"))
    assert result.version and result.version[0].isdigit()
    assert managed_bin_dirs(tools) == [tools / "bin"]

    uvx = shutil.which("uvx", path=path_with_managed(_base_path_without("uvx"), tools))
    assert uvx is not None and is_managed(uvx, tools)
    proc = await asyncio.create_subprocess_exec(uvx, "--version", stdout=asyncio.subprocess.PIPE)
    out, _ = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0 and result.version in out.decode()

    check = await DependencyChecker(path=_base_path_without("uvx"), tools_dir=tools).check("uvx")
    assert check.installed and check.path == uvx and check.version == result.version and check.runtime == "uv"


@pytest.mark.network
@pytest.mark.timeout(900)
async def test_time_preset_runs_through_the_managed_uvx(
    installed_uv: tuple[Path, DependencyInstallResult, list[str]], tmp_path: Path
) -> None:
    """The 'time' preset's launch line, started with the server PATH, answers as an MCP server."""
    tools, result, _ = installed_uv
    assert result.success
    server = preset_to_input(find_preset(load_presets(), "time"), {"timezone": "Europe/Berlin"})
    path = path_with_managed(_base_path_without("uvx"), tools)
    command = shutil.which(server.config.command or "", path=path)
    assert command is not None and is_managed(command, tools)
    env = {"PATH": path, "HOME": str(tmp_path), "UV_CACHE_DIR": str(tmp_path / "uv-cache"), "UV_NATIVE_TLS": "1"}
    cert = os.environ.get("SSL_CERT_FILE") or os.environ.get("PIP_CERT")
    if cert:  # a machine behind a TLS-inspecting proxy: uv must trust the same CA bundle as pip
        env["SSL_CERT_FILE"] = cert
    params = StdioServerParameters(command=command, args=server.config.args, env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write, read_timeout_seconds=600) as session:
        await session.initialize()
        tools_listed = await session.list_tools()
    assert {"get_current_time", "convert_time"} <= {t.name for t in tools_listed.tools}


@pytest.mark.network
@pytest.mark.timeout(900)
async def test_system_runtime_comes_first_and_uninstall_removes_the_managed_one(
    installed_uv: tuple[Path, DependencyInstallResult, list[str]], tmp_path: Path
) -> None:
    tools, result, _ = installed_uv
    assert result.success
    system_dir = tmp_path / "system-bin"
    system_dir.mkdir()
    (system_dir / "uvx").symlink_to(tools / "uv" / "bin" / "uvx")
    assert shutil.which("uvx", path=path_with_managed(str(system_dir), tools)) == str(system_dir / "uvx")

    removed = await DependencyInstaller(tools_dir=tools).uninstall("uv")
    assert removed.success and any(line.endswith(str(tools / "uv")) for line in removed.log)
    assert not (tools / "uv").exists() and not (tools / "bin" / "uvx").exists()
    check = await DependencyChecker(path=SYSTEM_DIRS, tools_dir=tools).check("uvx")
    if shutil.which("uvx", path=SYSTEM_DIRS) is None:
        assert not check.installed and check.installable
    again = await DependencyInstaller(tools_dir=tools).uninstall("uvx")
    assert not again.success and "was not installed by the app" in (again.error or "")


async def test_node_and_docker_get_instructions_instead(tmp_path: Path) -> None:
    installer = DependencyInstaller(tools_dir=tmp_path / "tools")
    for command, expected in (("npx", "Node.js 18 or newer"), ("docker", "docker")):
        result = await installer.install(command)
        assert not result.success and result.instructions and expected in result.instructions
        assert "cannot be installed by the app" in (result.error or "")
    assert not (tmp_path / "tools").exists()


async def test_unknown_command_is_refused(tmp_path: Path) -> None:
    result = await DependencyInstaller(tools_dir=tmp_path).install("my-server")
    assert not result.success and "it can install: uv, uvx" in (result.error or "")


async def test_npm_packages_need_npm(tmp_path: Path) -> None:
    result = await DependencyInstaller(tools_dir=tmp_path / "tools", path=str(tmp_path / "empty")).install("bun")
    assert not result.success and "needs npm" in (result.error or "") and result.instructions
    assert not (tmp_path / "tools" / "bun").exists()


async def test_a_failed_step_is_reported_and_cleaned_up(tmp_path: Path) -> None:
    lines: list[str] = []
    installer = DependencyInstaller(tools_dir=tmp_path / "tools", python=str(tmp_path / "no-python"))
    result = await installer.install("pipx", lines.append)
    assert not result.success and "creating the environment: cannot run" in (result.error or "")
    assert lines and lines[-1].startswith("failed: ") and result.log == lines
    assert not (tmp_path / "tools" / "pipx").exists()


def test_server_path_appends_managed_dirs_once(tmp_path: Path) -> None:
    assert managed_bin_dirs(tmp_path) == []
    assert path_with_managed("/a:/b".replace(":", os.pathsep), tmp_path) == os.pathsep.join(["/a", "/b"])
    (tmp_path / "bin").mkdir()
    joined = path_with_managed(os.pathsep.join(["/a", "/b"]), tmp_path)
    assert joined.split(os.pathsep) == ["/a", "/b", str(tmp_path / "bin")]
    assert path_with_managed(joined, tmp_path) == joined
