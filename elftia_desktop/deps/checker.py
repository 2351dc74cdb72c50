"""Is the runtime a stdio server needs on this machine, which version, and is it new enough?

Commands are looked up on the PATH servers are started with, the one the pool uses
(:func:`elftia_desktop.core.login_env.command_search_path`: the login shell's ``PATH``, this
process's, then the app's managed tools folder).
The version comes from the runtime's main command (``node --version`` for ``npx``), run
asynchronously with a 5 s timeout. Unknown programs are only looked up, never run.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path

from elftia_desktop.core.login_env import command_search_path
from elftia_desktop.core.models import DependencyCheckResult, McpServerRecord, McpServerTransport
from elftia_desktop.core.text_rules import quoted
from elftia_desktop.deps.command_map import runtime_command
from elftia_desktop.deps.process import run_capture
from elftia_desktop.deps.requirements import (
    RUNTIMES,
    Runtime,
    command_name,
    instructions_for,
    meets_minimum,
    parse_version,
    runtime_for,
)
from elftia_desktop.deps.system_package import how_to_install, plan_here
from elftia_desktop.platform.commands import find_command

PROBE_TIMEOUT = 5.0
"""Seconds a ``--version`` probe may take."""
_NOT_ON_PATH = "is not on the PATH servers are started with"


@dataclass(frozen=True)
class _Probe:
    version: str | None
    problem: str | None


class DependencyChecker:
    """Checks runtimes on the PATH servers are started with."""

    def __init__(self, path: str | None = None, tools_dir: Path | None = None, timeout: float = PROBE_TIMEOUT) -> None:
        """``path``: the base PATH to search (default: the login shell's); ``tools_dir``: the managed tools."""
        self._path = path
        self._tools_dir = tools_dir
        self._timeout = timeout

    async def search_path(self) -> str:
        """The PATH commands are looked up on: the base PATH, then the managed bin folder."""
        return await command_search_path(self._tools_dir, self._path)

    async def check(self, command: str) -> DependencyCheckResult:
        """Look up ``command`` (a name, a path or ``{python}``), probe its runtime's version, compare to the minimum."""
        command = runtime_command(command)  # a built-in preset's ``{python}`` is the app's interpreter
        runtime = runtime_for(command)
        search = await self.search_path()
        located = await asyncio.to_thread(_locate, command, search)
        if located is None:
            return self._missing(command, runtime, search)
        if runtime is None:
            return DependencyCheckResult(command=command, installed=True, path=located)
        probe = await self._probe(_probe_program(runtime, located, search), runtime)
        version_numbers = parse_version(probe.version or "")
        ok = meets_minimum(version_numbers, runtime.minimum)
        instructions = None
        if probe.problem:
            instructions = f"{probe.problem}\n{instructions_for(runtime)}"
        elif not ok:
            instructions = (
                f"{runtime.title} {probe.version} is too old: servers need {runtime.minimum_text} or newer.\n"
                f"{instructions_for(runtime)}"
            )
        return DependencyCheckResult(
            command=command,
            installed=True,
            path=located,
            version=probe.version,
            meets_minimum=ok,
            installable=_installable(runtime, search),
            instructions=instructions,
            runtime=runtime.name,
            reason=runtime.reason,
        )

    async def check_all(self) -> list[DependencyCheckResult]:
        """Every command of every runtime in the table, in table order."""
        commands = [c for runtime in RUNTIMES for c in runtime.commands]
        return list(await asyncio.gather(*(self.check(c) for c in commands)))

    async def check_for_server(self, record: McpServerRecord) -> DependencyCheckResult:
        """The runtime a server's launch line needs (``cmd /c npx``, ``uvx --from``, ``python -m`` ...)."""
        if record.type is not McpServerTransport.STDIO:
            return DependencyCheckResult(
                command=record.config.url or "",
                installed=True,
                reason=f"{record.name} connects over {record.type.value.upper()}; it needs no local runtime.",
            )
        return await self.check(runtime_command(record.config.command or "", record.config.args))

    def _missing(self, command: str, runtime: Runtime | None, search: str) -> DependencyCheckResult:
        if runtime is None:
            where = "does not exist or is not executable" if os.path.isabs(command) else _NOT_ON_PATH
            return DependencyCheckResult(
                command=command,
                installed=False,
                meets_minimum=False,
                instructions=f"{quoted(command)} {where}. Check the spelling, or install the program that provides it.",
            )
        return DependencyCheckResult(
            command=command,
            installed=False,
            meets_minimum=False,
            installable=_installable(runtime, search),
            instructions=how_to_install(runtime, search),
            runtime=runtime.name,
            reason=runtime.reason,
        )

    async def _probe(self, program: str, runtime: Runtime) -> _Probe:
        """Run ``program --version`` with a timeout; the first version-looking line of its output."""
        try:
            code, text = await run_capture([program, *runtime.version_args], self._timeout)
        except TimeoutError:
            return _Probe(None, f"'{program} --version' did not answer within {self._timeout:.0f} s")
        except OSError as exc:
            return _Probe(None, f"{program} was found but cannot be started: {exc.strerror or exc}")
        if code != 0:
            last = text.strip().splitlines()[-1:] or ["no output"]
            return _Probe(None, f"'{program} --version' exited with code {code}: {last[0]}")
        numbers = parse_version(text)
        if numbers is None:
            return _Probe(None, f"'{program} --version' printed no version number")
        return _Probe(".".join(map(str, numbers)), None)


def _locate(command: str, search: str) -> str | None:
    """``command`` where it is (a path) or found on ``search``, as the stdio start finds it."""
    return find_command(command, search)


def _probe_program(runtime: Runtime, located: str, search: str) -> str:
    """What to run for the version: ``node`` next to ``npx`` (or on the PATH); Python itself."""
    if runtime.name == "python" or command_name(located) == runtime.probe_command:
        return located
    sibling = find_command(runtime.probe_command, str(Path(located).parent))
    return sibling or find_command(runtime.probe_command, search) or located


def _installable(runtime: Runtime, search: str) -> bool:
    """True when the app can install ``runtime`` here (npm packages need npm on the PATH; an OS package
    needs root and ``apt-get``)."""
    if runtime.system_package is not None:
        return plan_here(runtime, search).argv is not None
    if runtime.install is None:
        return False
    return runtime.install.needs is None or find_command(runtime.install.needs, search) is not None


async def check(command: str) -> DependencyCheckResult:
    """Check one command on the login shell's PATH plus the managed tools."""
    return await DependencyChecker().check(command)


async def check_for_server(record: McpServerRecord) -> DependencyCheckResult:
    """Check the runtime a server needs, on the login shell's PATH plus the managed tools."""
    return await DependencyChecker().check_for_server(record)
