"""Issue 33: the Dependencies check knows bubblewrap (the Linux sandbox), installs it where it can (root with
apt-get), says the exact command where it cannot, and says plainly where none exists."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from elftia_desktop.deps import system_package
from elftia_desktop.deps.checker import DependencyChecker
from elftia_desktop.deps.installer import DependencyInstaller
from elftia_desktop.deps.requirements import OsName, instructions_for, runtime_for
from elftia_desktop.deps.system_package import SystemPlan, system_plan
from elftia_desktop.platform.runtime import user_id
from tests.helpers.processes import alive as running
from tests.helpers.processes import wait_for


def test_bwrap_is_the_bubblewrap_runtime_with_instructions_for_each_os() -> None:
    runtime = runtime_for("/usr/bin/bwrap")
    assert runtime is not None and runtime.name == "bubblewrap"
    assert "apt-get install bubblewrap" in instructions_for(runtime, "linux")
    assert "sandbox-exec" in instructions_for(runtime, "macos")
    assert "no sandbox on Windows" in instructions_for(runtime, "windows")


@pytest.mark.anyio
@pytest.mark.skipif(not sys.platform.startswith("linux") or not shutil.which("bwrap"), reason="needs bwrap")
async def test_an_installed_bwrap_is_found_with_its_version() -> None:
    result = await DependencyChecker().check("bwrap")
    assert result.installed and result.runtime == "bubblewrap"
    assert result.version is not None and result.version[0].isdigit()


# -- installing it where the app can (the decision takes the machine's facts) --------------------------

BWRAP = runtime_for("bwrap")


def _plan(os_name: OsName, root: bool, *managers: str) -> SystemPlan:
    assert BWRAP is not None
    return system_plan(BWRAP, os_name, root, lambda name: name in managers)


def test_root_on_debian_gets_a_non_interactive_apt_get_run() -> None:
    plan = _plan("linux", True, "apt-get")
    assert plan.argv == ("apt-get", "install", "-y", "bubblewrap")
    assert "you are root" in plan.text


def test_a_user_without_root_is_told_the_exact_sudo_command_instead_of_an_install() -> None:
    plan = _plan("linux", False, "apt-get")
    assert plan.argv is None and "  sudo apt-get install bubblewrap" in plan.text
    fedora = _plan("linux", False, "dnf")
    assert fedora.argv is None and "sudo dnf install bubblewrap" in fedora.text and "apt-get" not in fedora.text
    arch_root = _plan("linux", True, "pacman")  # root, but not apt: said, not run
    assert arch_root.argv is None and "  pacman -S bubblewrap" in arch_root.text and "sudo" not in arch_root.text


def test_no_package_manager_and_other_oses_have_nothing_to_run() -> None:
    assert _plan("linux", True).argv is None and "Debian/Ubuntu" in _plan("linux", True).text
    assert _plan("macos", True, "apt-get").argv is None and "sandbox-exec" in _plan("macos", True, "apt-get").text
    windows = _plan("windows", False)
    assert windows.argv is None and "no sandbox on Windows" in windows.text


@pytest.mark.anyio
async def test_not_root_the_installer_runs_nothing_and_says_the_command(
    tmp_path: Path, make_program: Callable[[str, str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "ran"
    apt = make_program("apt-get", f"touch {marker}")
    monkeypatch.setattr(system_package, "user_id", lambda: 1000)
    result = await DependencyInstaller(tools_dir=tmp_path / "tools", path=str(apt.parent)).install("bwrap")
    assert not result.success and "sudo apt-get install bubblewrap" in (result.error or "")
    assert result.instructions and "sudo apt-get install bubblewrap" in result.instructions
    assert not marker.exists()
    check = await DependencyChecker(path=str(apt.parent), tools_dir=tmp_path / "tools").check("bwrap")
    assert not check.installable and "sudo apt-get install bubblewrap" in (check.instructions or "")


@pytest.mark.anyio
async def test_as_root_the_installer_runs_apt_get_streams_it_and_finds_bwrap(
    tmp_path: Path, make_program: Callable[[str, str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    bwrap = tmp_path / "fake-bin" / "bwrap"
    apt = make_program(
        "apt-get",
        '[ "$DEBIAN_FRONTEND" = noninteractive ] || { echo "would prompt"; exit 9; }\n'
        '[ "$*" = "install -y bubblewrap" ] || { echo "wrong arguments: $*"; exit 8; }\n'
        "echo 'Setting up bubblewrap (0.11.0-1) ...'\n"
        f"printf '#!/bin/sh\\necho bubblewrap 0.11.0\\n' > {bwrap} && chmod +x {bwrap}",
    )
    monkeypatch.setattr(system_package, "user_id", lambda: 0)
    search = f"{apt.parent}{os.pathsep}/usr/bin{os.pathsep}/bin"
    lines: list[str] = []
    result = await DependencyInstaller(tools_dir=tmp_path / "tools", path=search).install("bwrap", lines.append)
    assert result.success, result.error
    assert result.path == str(bwrap) and result.version == "0.11.0"
    assert lines[0] == "running apt-get install -y bubblewrap" and "Setting up bubblewrap (0.11.0-1) ..." in lines
    assert not (tmp_path / "tools").exists()  # a system package: nothing of it in the tools folder


@pytest.mark.anyio
async def test_a_cancelled_apt_get_is_killed_with_its_children(
    tmp_path: Path, make_program: Callable[[str, str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    apt = make_program("apt-get", 'sleep 600 &\necho "Unpacking bubblewrap (pid $!)"\nwait')
    monkeypatch.setattr(system_package, "user_id", lambda: 0)
    lines: list[str] = []
    started = asyncio.Event()

    def progress(line: str) -> None:
        lines.append(line)
        if "pid" in line:
            started.set()

    installer = DependencyInstaller(tools_dir=tmp_path / "tools", path=f"{apt.parent}{os.pathsep}/usr/bin:/bin")
    task = asyncio.create_task(installer.install("bwrap", progress))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    child = int(lines[-1].rsplit(" ", 1)[-1].rstrip(")"))
    assert wait_for(lambda: not running(child)), "the install's child outlived its cancel"  # killed, then gone


@pytest.mark.network
@pytest.mark.anyio
@pytest.mark.skipif(
    not sys.platform.startswith("linux") or user_id() != 0 or not shutil.which("apt-get"), reason="needs root apt-get"
)
async def test_real_apt_get_install_of_bubblewrap_as_root() -> None:
    lines: list[str] = []
    result = await DependencyInstaller().install("bwrap", lines.append)
    assert result.success, result.error
    assert result.path and result.version and lines[0] == "running apt-get install -y bubblewrap"
