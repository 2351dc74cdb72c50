"""The login shell's PATH: read from a real shell, bounded in time, cached, with a fallback."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from elftia_desktop.deps import login_env

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    login_env.clear_cache()
    yield
    login_env.clear_cache()


@pytest.mark.skipif(shutil.which("sh") is None, reason="needs a POSIX shell")
async def test_reads_path_from_a_login_shell(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    profile_dir = tmp_path / "from-profile"
    home = tmp_path / "home"
    home.mkdir()
    (home / ".profile").write_text(f'PATH="$PATH:{profile_dir}"; export PATH\n', encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SHELL", shutil.which("sh") or "/bin/sh")
    monkeypatch.setenv("ENV", "")
    path = await login_env.login_shell_path()
    assert str(profile_dir) in path.split(os.pathsep)
    # Cached: a changed profile is not read again until the cache is cleared.
    (home / ".profile").write_text("", encoding="utf-8")
    assert await login_env.login_shell_path() == path
    login_env.clear_cache()
    assert str(profile_dir) not in (await login_env.login_shell_path()).split(os.pathsep)


async def test_without_a_shell_the_process_path_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SHELL", raising=False)
    assert await login_env.login_shell_path() == os.environ["PATH"]


async def test_a_failing_shell_falls_back(
    monkeypatch: pytest.MonkeyPatch, make_program: Callable[[str, str], Path]
) -> None:
    shell = make_program("badshell", "echo 'no such option' >&2; exit 2")
    monkeypatch.setenv("SHELL", str(shell))
    assert await login_env.login_shell_path() == os.environ["PATH"]


async def test_a_hanging_shell_is_killed_in_time(make_program: Callable[[str, str], Path]) -> None:
    shell = make_program("slowshell", "sleep 60")
    assert await login_env.read_shell_env(str(shell), "-lc", limit=0.5) is None


async def test_start_up_noise_is_skipped(make_program: Callable[[str, str], Path]) -> None:
    shell = make_program("noisyshell", 'echo "Welcome! PATH=/bogus"; eval "$2"')
    env = await login_env.read_shell_env(str(shell), "-ilc")
    assert env is not None and env["PATH"] == os.environ["PATH"]
