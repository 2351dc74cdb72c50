"""Issue 33: the Dependencies check knows bubblewrap (the Linux sandbox) and says plainly where none exists."""

from __future__ import annotations

import shutil
import sys

import pytest

from elftia_desktop.deps.checker import DependencyChecker
from elftia_desktop.deps.requirements import instructions_for, runtime_for


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
