"""The login shell's environment and the one PATH (core/login_env.py): a real shell, bounded, cached, shared.

The pool (``connections.transports``) and the Dependencies page (``deps.checker``) both find commands
through this module, so they agree on whether a command such as ``npx`` exists.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from elftia_desktop.connections.transports import stdio_argv
from elftia_desktop.core import login_env
from elftia_desktop.core.models import McpServerConfig, McpServerRecord, McpServerTransport
from elftia_desktop.deps.checker import DependencyChecker
from elftia_desktop.platform import commands

pytestmark = pytest.mark.anyio
MakeProgram = Callable[[str, str], Path]


@pytest.fixture
def anyio_backend() -> str:
    """The shell runs as an asyncio subprocess."""
    return "asyncio"


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    login_env.reset_cache()
    yield
    login_env.reset_cache()


def fake_shell(make_program: MakeProgram, path: str, *, count_file: Path | None = None) -> Path:
    """A 'login shell' that sets ``PATH`` to ``path`` then runs the script it is given (``$2``)."""
    count = f'echo run >> "{count_file}"; ' if count_file else ""
    return make_program("fakeshell", f'{count}PATH="{path}"; export PATH; eval "$2"')


@pytest.mark.skipif(shutil.which("sh") is None, reason="needs a POSIX shell")
async def test_reads_path_from_a_login_shell(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    profile_dir = tmp_path / "from-profile"
    home = tmp_path / "home"
    home.mkdir()
    (home / ".profile").write_text(f'PATH="$PATH:{profile_dir}"; export PATH\n', encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SHELL", shutil.which("sh") or "/bin/sh")
    monkeypatch.setenv("ENV", "")
    path = (await login_env.login_env())["PATH"]
    assert str(profile_dir) in path.split(os.pathsep)
    # Cached: a changed profile is not read again until the cache is reset.
    (home / ".profile").write_text("", encoding="utf-8")
    assert (await login_env.login_env())["PATH"] == path
    login_env.reset_cache()
    assert str(profile_dir) not in (await login_env.login_env())["PATH"].split(os.pathsep)


async def test_without_a_shell_the_process_environment_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SHELL", raising=False)
    assert await login_env.login_env() == dict(os.environ)
    login_env.reset_cache()
    monkeypatch.setenv("SHELL", "/nonexistent/shell")
    env = await login_env.login_env()
    assert env == dict(os.environ)
    monkeypatch.setenv("SHELL", "/bin/sh")
    assert await login_env.login_env() is env  # cached


async def test_a_failing_shell_falls_back(monkeypatch: pytest.MonkeyPatch, make_program: MakeProgram) -> None:
    shell = make_program("badshell", "echo 'no such option' >&2; exit 2")
    monkeypatch.setenv("SHELL", str(shell))
    assert (await login_env.login_env())["PATH"] == os.environ["PATH"]


async def test_the_non_interactive_form_is_tried_when_the_interactive_one_fails(
    monkeypatch: pytest.MonkeyPatch, make_program: MakeProgram
) -> None:
    shell = make_program("picky", 'if [ "$1" = -ilc ]; then exit 1; fi; PATH=/from-lc:/usr/bin:/bin; eval "$2"')
    monkeypatch.setenv("SHELL", str(shell))
    assert (await login_env.login_env())["PATH"] == "/from-lc:/usr/bin:/bin"


async def test_a_hanging_shell_is_killed_within_the_bound(
    monkeypatch: pytest.MonkeyPatch, make_program: MakeProgram
) -> None:
    shell = make_program("slowshell", "sleep 60")
    assert await commands.read_shell_env(str(shell), "-lc", limit=0.5) is None
    monkeypatch.setenv("SHELL", str(shell))
    loop = asyncio.get_running_loop()
    started = loop.time()
    assert await login_env.login_env(limit=1.0) == dict(os.environ)
    assert loop.time() - started < 10  # both forms share the one bound (generous for a loaded machine)


async def test_start_up_noise_and_multi_line_values(make_program: MakeProgram) -> None:
    shell = make_program("noisyshell", 'echo "Welcome! PATH=/bogus"; export MULTI="one\ntwo"; eval "$2"; echo bye')
    env = await commands.read_shell_env(str(shell), "-ilc")
    assert env is not None and env["PATH"] == os.environ["PATH"]
    assert env["MULTI"] == "one\ntwo"
    assert commands.parse_env_output("no markers at all\nPATH=/x\n") is None


async def test_concurrent_callers_share_one_shell_run(
    monkeypatch: pytest.MonkeyPatch, make_program: MakeProgram, tmp_path: Path
) -> None:
    runs = tmp_path / "runs"
    monkeypatch.setenv("SHELL", str(fake_shell(make_program, "/shared:/usr/bin:/bin", count_file=runs)))
    results = await asyncio.gather(*(login_env.login_env() for _ in range(5)))
    assert {r["PATH"] for r in results} == {"/shared:/usr/bin:/bin"}
    assert runs.read_text().split() == ["run"]


async def test_a_cancelled_run_kills_its_shell_and_a_waiter_runs_it_again(
    monkeypatch: pytest.MonkeyPatch, make_program: MakeProgram, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    shell = make_program("slowfirst", f'echo $$ >> "{pids}"; sleep 2; PATH=/again:/usr/bin:/bin; eval "$2"')
    monkeypatch.setenv("SHELL", str(shell))
    first = asyncio.create_task(login_env.login_env())
    while not (pids.exists() and pids.read_text().strip()):  # noqa: ASYNC110 - a file sends no event
        await asyncio.sleep(0.02)
    waiter = asyncio.create_task(login_env.login_env())
    await asyncio.sleep(0)  # the waiter is now waiting on the first run
    first.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first
    first_shell = int(pids.read_text().split()[0])
    assert (await asyncio.wait_for(waiter, 30))["PATH"] == "/again:/usr/bin:/bin"
    assert len(pids.read_text().split()) == 2  # the waiter ran the shell again
    with pytest.raises(ProcessLookupError):
        os.kill(first_shell, 0)  # killed (and reaped) when its run was cancelled


async def test_cancelling_the_run_and_its_waiter_together_runs_no_new_shell(
    monkeypatch: pytest.MonkeyPatch, make_program: MakeProgram, tmp_path: Path
) -> None:
    """At quit every request is cancelled at once: a cancelled waiter must stop, not start the shell again."""
    pids = tmp_path / "pids"
    shell = make_program("slow", f'echo $$ >> "{pids}"; sleep 5; eval "$2"')
    monkeypatch.setenv("SHELL", str(shell))
    first = asyncio.create_task(login_env.login_env())
    while not (pids.exists() and pids.read_text().strip()):  # noqa: ASYNC110 - a file sends no event
        await asyncio.sleep(0.02)
    waiters = [asyncio.create_task(login_env.login_env()) for _ in range(3)]
    await asyncio.sleep(0)  # the waiters now wait on the first run
    login_env._running[asyncio.get_running_loop()].cancel()  # the run's answer is cancelled in the same tick
    for task in (*waiters, first):
        task.cancel()
    outcomes = await asyncio.wait_for(asyncio.gather(first, *waiters, return_exceptions=True), 3)
    assert all(isinstance(o, asyncio.CancelledError) for o in outcomes), outcomes
    assert len(pids.read_text().split()) == 1, "a cancelled waiter started the shell again"
    shell_pid = int(pids.read_text())
    for _ in range(150):  # the killed shell is reaped by the loop's child watcher
        try:
            os.kill(shell_pid, 0)
        except ProcessLookupError:
            break
        await asyncio.sleep(0.02)
    else:
        pytest.fail("the cancelled run's shell was not killed")
    await asyncio.sleep(0.1)  # the loop closes the reaped shell's pipes before the test's loop is closed


async def test_the_pool_and_the_dependencies_page_find_the_same_command(
    monkeypatch: pytest.MonkeyPatch, make_program: MakeProgram, tmp_path: Path
) -> None:
    """One environment, one answer: a command on the login PATH and one only on the app's own PATH."""
    login_dir, app_dir = tmp_path / "login-bin", tmp_path / "app-bin"
    for folder, name in ((login_dir, "elftia-login-tool"), (app_dir, "elftia-app-tool")):
        folder.mkdir()
        (folder / name).write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
        (folder / name).chmod(0o755)
    monkeypatch.setenv("SHELL", str(fake_shell(make_program, f"{login_dir}:/usr/bin:/bin")))
    monkeypatch.setenv("PATH", f"{app_dir}{os.pathsep}{os.environ['PATH']}")
    checker = DependencyChecker(tools_dir=tmp_path / "tools")
    for name, folder in (("elftia-login-tool", login_dir), ("elftia-app-tool", app_dir)):
        record = McpServerRecord(
            name=name, type=McpServerTransport.STDIO, config=McpServerConfig(command=name), is_trusted=True
        )
        argv, pool_path, _ = await stdio_argv(record)
        check = await checker.check(name)
        assert check.installed and check.path == argv[0] == str(folder / name)
        assert await checker.search_path() == pool_path
    assert not (await checker.check("elftia-nowhere")).installed
    with pytest.raises(Exception, match='command not found: "elftia-nowhere"'):
        await stdio_argv(
            McpServerRecord(
                name="nowhere", type=McpServerTransport.STDIO, config=McpServerConfig(command="elftia-nowhere")
            )
        )


def test_passed_through_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    monkeypatch.setenv("SOME_PRIVATE_THING", "x")
    passed = login_env.passed_through({"LANG": "C.UTF-8"})
    assert passed["LANG"] == "C.UTF-8" and passed["HTTPS_PROXY"] == "http://proxy.invalid:3128"
    assert "SOME_PRIVATE_THING" not in passed
    assert sys.executable == commands.find_command(sys.executable, "")
