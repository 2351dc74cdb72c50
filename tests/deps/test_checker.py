"""Real probes of real programs: this Python, Node.js when present, missing and broken commands."""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.deps.checker import DependencyChecker

pytestmark = pytest.mark.anyio

PATH = os.environ.get("PATH", os.defpath)


def _empty_tools(tmp_path: Path) -> Path:
    return tmp_path / "no-tools"


async def test_this_python_is_found_with_its_version(tmp_path: Path) -> None:
    result = await DependencyChecker(path=PATH, tools_dir=_empty_tools(tmp_path)).check(sys.executable)
    assert result.installed and result.path == sys.executable
    assert result.version == platform.python_version()
    assert result.runtime == "python" and result.meets_minimum and not result.installable
    assert result.reason and "python -m" in result.reason
    assert result.instructions is None


async def test_the_python_placeholder_of_built_in_presets_is_this_python(tmp_path: Path) -> None:
    """The form checks a built-in preset's command as typed, ``{python}``: found, not "not found"."""
    result = await DependencyChecker(path=PATH, tools_dir=_empty_tools(tmp_path)).check(" {python} ")
    assert result.installed and result.path == sys.executable
    assert result.version == platform.python_version() and result.runtime == "python"


async def test_python_by_name_on_a_path(tmp_path: Path) -> None:
    path = os.pathsep.join([str(Path(sys.executable).parent), PATH])
    result = await DependencyChecker(path=path, tools_dir=_empty_tools(tmp_path)).check("python")
    assert result.installed and result.path is not None
    assert result.version == platform.python_version()


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed on this machine")
async def test_node_and_npx_report_the_node_version(tmp_path: Path) -> None:
    expected = subprocess.check_output(["node", "--version"], text=True).strip().lstrip("v")  # noqa: ASYNC221
    checker = DependencyChecker(path=PATH, tools_dir=_empty_tools(tmp_path))
    node, npx = await checker.check("node"), await checker.check("npx")
    assert node.installed and node.version == expected and node.runtime == "node"
    assert npx.installed and npx.version == expected and npx.runtime == "node"
    assert npx.path == shutil.which("npx")
    assert node.meets_minimum == (int(expected.split(".")[0]) >= 18)


async def test_missing_command_says_how_to_get_it(tmp_path: Path) -> None:
    checker = DependencyChecker(path=str(tmp_path / "empty"), tools_dir=_empty_tools(tmp_path))
    unknown = await checker.check("elftia-no-such-program")
    assert not unknown.installed and not unknown.installable and unknown.runtime is None
    assert unknown.instructions is not None and "is not on the PATH" in unknown.instructions
    uvx = await checker.check("uvx")
    assert not uvx.installed and not uvx.meets_minimum
    assert uvx.runtime == "uv" and uvx.installable
    assert (
        uvx.instructions is not None and "uv" in uvx.instructions and "https://docs.astral.sh/uv/" in uvx.instructions
    )


async def test_missing_absolute_path(tmp_path: Path) -> None:
    result = await DependencyChecker(path=PATH, tools_dir=_empty_tools(tmp_path)).check(str(tmp_path / "npx"))
    assert not result.installed and result.runtime == "node"


async def test_old_node_does_not_meet_the_minimum(tmp_path: Path, make_program: Callable[[str, str], Path]) -> None:
    node = make_program("node", "echo v16.20.2")
    make_program("npx", "echo 8.19.4")
    checker = DependencyChecker(path=str(node.parent), tools_dir=_empty_tools(tmp_path))
    result = await checker.check("npx")
    assert result.installed and result.version == "16.20.2" and not result.meets_minimum
    assert result.instructions is not None and "too old" in result.instructions and "18" in result.instructions


async def test_a_hanging_probe_is_stopped(tmp_path: Path, make_program: Callable[[str, str], Path]) -> None:
    docker = make_program("docker", "sleep 60")
    checker = DependencyChecker(path=str(docker.parent), tools_dir=_empty_tools(tmp_path), timeout=1.0)
    result = await checker.check("docker")
    assert result.installed and result.version is None
    assert result.instructions is not None and "did not answer within 1 s" in result.instructions


async def test_a_failing_probe_is_reported(tmp_path: Path, make_program: Callable[[str, str], Path]) -> None:
    deno = make_program("deno", "echo 'deno: broken install' >&2; exit 3")
    result = await DependencyChecker(path=str(deno.parent), tools_dir=_empty_tools(tmp_path)).check("deno")
    assert result.installed and result.version is None
    assert result.instructions is not None and "exited with code 3: deno: broken install" in result.instructions


async def test_unknown_programs_are_found_but_never_run(
    tmp_path: Path, make_program: Callable[[str, str], Path]
) -> None:
    marker = tmp_path / "ran"
    program = make_program("my-server", f"touch {marker}")
    result = await DependencyChecker(path=PATH, tools_dir=_empty_tools(tmp_path)).check(str(program))
    assert result.installed and result.path == str(program) and result.runtime is None
    assert not marker.exists()


async def test_check_all_lists_every_command(tmp_path: Path) -> None:
    results = await DependencyChecker(path=PATH, tools_dir=_empty_tools(tmp_path)).check_all()
    commands = [r.command for r in results]
    assert commands[:2] == ["node", "npx"] and "pipx" in commands and len(commands) == len(set(commands))
    python = next(r for r in results if r.command in ("python", "python3") and r.installed)
    assert re.fullmatch(r"\d+\.\d+\.\d+", python.version or "")


async def test_check_for_server_maps_the_launch_line(tmp_path: Path, make_program: Callable[[str, str], Path]) -> None:
    make_program("node", "echo v22.1.0")
    npx = make_program("npx", "echo 10.0.0")
    checker = DependencyChecker(path=str(npx.parent), tools_dir=_empty_tools(tmp_path))
    record = McpServerRecord(name="fs", type="stdio", config={"command": "cmd", "args": ["/c", "npx", "-y", "pkg"]})
    result = await checker.check_for_server(record)
    assert result.command == "npx" and result.runtime == "node" and result.version == "22.1.0"
    builtin = McpServerRecord(name="clock", type="stdio", config={"command": sys.executable, "args": ["-m", "x"]})
    assert (await checker.check_for_server(builtin)).version == platform.python_version()
    remote = McpServerRecord(name="gh", type="http", config={"url": "https://example.com/mcp"})
    result = await checker.check_for_server(remote)
    assert result.installed and result.runtime is None and "needs no local runtime" in (result.reason or "")
