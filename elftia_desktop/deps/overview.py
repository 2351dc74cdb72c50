"""The Dependencies page's table: every runtime of the declarative table, checked, with its users.

One row per :data:`~elftia_desktop.deps.requirements.RUNTIMES` entry: the check of its main
command (found, version, path, minimum), whether the app installed it (and so may uninstall
it), whether the app can install it here, the servers whose launch line needs it, and the
per-OS instructions for installing it by hand.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field

from elftia_desktop.core.models import DependencyCheckResult, McpServerRecord, McpServerTransport
from elftia_desktop.deps.checker import DependencyChecker
from elftia_desktop.deps.command_map import runtime_command
from elftia_desktop.deps.installer import DependencyInstaller, is_managed
from elftia_desktop.deps.requirements import RUNTIMES, Runtime, runtime_for
from elftia_desktop.deps.system_package import how_to_install


@dataclass
class RuntimeRow:
    """One runtime as the Dependencies page shows it."""

    runtime: Runtime
    check: DependencyCheckResult
    managed: bool
    """Installed by the app into its tools folder (so Uninstall applies)."""
    can_install: bool
    """The app can install it here (a PyPI package, or an npm one with npm on the PATH)."""
    needed_by: list[str] = field(default_factory=list)
    """Names of the configured servers whose launch line needs it."""
    own_interpreter: list[str] = field(default_factory=list)
    """Python only: servers that run on the app's own interpreter (built-in ones), which need nothing."""

    @property
    def status(self) -> str:
        """``ok``, ``missing``, ``too-old`` or ``broken`` (found but its version cannot be read)."""
        if not self.check.installed:
            return "missing"
        if self.check.meets_minimum:
            return "ok"
        return "too-old" if self.check.version else "broken"

    @property
    def install_source(self) -> str | None:
        """``system`` (the OS package manager), ``pypi`` or ``npm``; None when the app cannot install it."""
        runtime = self.runtime
        return "system" if runtime.system_package else runtime.install.index if runtime.install else None

    @property
    def instructions(self) -> str:
        """How to install it by hand on this system."""
        return how_to_install(self.runtime)

    @property
    def problem(self) -> str | None:
        """Why a found copy does not do (too old, or its version cannot be read)."""
        return self.check.instructions if self.status in ("too-old", "broken") else None


OWN_INTERPRETER = "own-python"
"""The key :func:`servers_by_runtime` files servers under that run on the app's own interpreter."""


def runs_own_interpreter(command: str) -> bool:
    """True when ``command`` is the interpreter (or frozen executable) this app runs on."""
    try:
        return os.path.samefile(command, sys.executable)
    except OSError:
        return False


def servers_by_runtime(records: Iterable[McpServerRecord]) -> dict[str, list[str]]:
    """Runtime name -> names of the stdio servers whose (unwrapped) command belongs to it.

    Servers started with the app's own interpreter (the built-in Clock and Notes) need no runtime:
    they are filed under :data:`OWN_INTERPRETER`.
    """
    out: dict[str, list[str]] = {}
    for record in records:
        if record.type is not McpServerTransport.STDIO or not record.config.command:
            continue
        if runs_own_interpreter(record.config.command):
            out.setdefault(OWN_INTERPRETER, []).append(record.name)
            continue
        runtime = runtime_for(runtime_command(record.config.command, record.config.args))
        if runtime is not None:
            out.setdefault(runtime.name, []).append(record.name)
    return out


async def runtime_rows(
    checker: DependencyChecker, installer: DependencyInstaller, records: Iterable[McpServerRecord]
) -> list[RuntimeRow]:
    """Every runtime of the table, checked concurrently, in table order.

    Each of a runtime's commands is looked up; the row shows the first one found (``python3``
    when there is no ``python``), or the main command's result when none is.
    """
    users = servers_by_runtime(records)
    per_runtime = await asyncio.gather(*(_check_commands(checker, r) for r in RUNTIMES))
    installed_here = set(installer.installed_runtimes())
    rows = []
    for runtime, check in zip(RUNTIMES, per_runtime, strict=True):
        managed = runtime.name in installed_here or bool(check.path and is_managed(check.path, installer.tools_dir))
        row = RuntimeRow(runtime, check, managed, check.installable, users.get(runtime.name, []))
        if runtime.name == "python":
            row.own_interpreter = users.get(OWN_INTERPRETER, [])
        rows.append(row)
    return rows


async def _check_commands(checker: DependencyChecker, runtime: Runtime) -> DependencyCheckResult:
    checks = await asyncio.gather(*(checker.check(c) for c in runtime.commands))
    return next((c for c in checks if c.installed), checks[0])
