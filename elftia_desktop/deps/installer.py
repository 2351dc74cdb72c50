"""Installing runtimes without admin rights into the app's tools folder.

Layout of ``<data dir>/tools`` (``tools_dir``)::

    tools/
      bin/           links (POSIX) or copies / .cmd shims (Windows) of the installed commands
      uv/            a private venv holding the ``uv`` wheel from PyPI (brings ``uvx``)
      pipx/          a private venv holding ``pipx``
      bun/, deno/    private npm prefixes (``npm install -g --prefix``), when npm is on the system

PyPI packages go into a venv made with the running interpreter's ``venv`` module; npm packages
need npm on the system. Output of pip / npm is streamed line by line to ``on_progress``.
The PATH commands are found on (:mod:`elftia_desktop.core.login_env`) has ``tools/bin`` AFTER the
system ``PATH``: a runtime already on the system is always preferred, the managed one is a visible
fallback that ``uninstall`` removes again.
Node.js, Python and Docker cannot be installed this way: their result carries per-OS instructions.
An OS package (bubblewrap) is installed with the system's package manager where
:func:`~elftia_desktop.deps.system_package.system_plan` allows it (Linux, root, ``apt-get``); it is
not the app's to uninstall.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from elftia_desktop.core.login_env import command_search_path
from elftia_desktop.core.models import DependencyInstallResult
from elftia_desktop.core.paths import managed_tools_dir
from elftia_desktop.core.text_rules import quoted
from elftia_desktop.deps.process import kill_tree, run_capture, start
from elftia_desktop.deps.requirements import Runtime, command_name, instructions_for, parse_version, runtime_for
from elftia_desktop.deps.system_package import APT_ENV, how_to_install, plan_here
from elftia_desktop.platform.commands import find_command

ProgressCallback = Callable[[str], None]

INSTALL_TIMEOUT = 900.0
"""Seconds one install step (venv, pip, npm) may take."""
VERIFY_TIMEOUT = 60.0
"""Seconds the ``--version`` check of a fresh install may take."""
_WINDOWS = sys.platform == "win32"


class InstallFailed(Exception):
    """One install step failed; the message says which and why."""


def default_tools_dir() -> Path:
    """``<data dir>/tools`` (not created)."""
    return managed_tools_dir()


def is_managed(path: str | Path, tools_dir: Path | None = None) -> bool:
    """True when ``path`` lies in the tools folder (installed by the app)."""
    root = (tools_dir or default_tools_dir()).resolve()
    candidate = Path(path)
    return candidate.absolute().is_relative_to(root) or candidate.resolve().is_relative_to(root)


def _exe(name: str) -> str:
    return f"{name}.exe" if _WINDOWS else name


class DependencyInstaller:
    """Installs and removes managed runtimes in one tools folder."""

    def __init__(
        self,
        tools_dir: Path | None = None,
        path: str | None = None,
        python: str | None = None,
        timeout: float = INSTALL_TIMEOUT,
    ) -> None:
        self.tools_dir = tools_dir or default_tools_dir()
        self._path = path
        self._python = python or sys.executable
        self._timeout = timeout

    @property
    def bin_dir(self) -> Path:
        """Where the managed commands are exposed."""
        return self.tools_dir / "bin"

    def installed_runtimes(self) -> list[str]:
        """Names of the runtimes installed in this tools folder."""
        return [name for name in ("uv", "pipx", "bun", "deno") if (self.tools_dir / name).is_dir()]

    async def install(self, command: str, on_progress: ProgressCallback | None = None) -> DependencyInstallResult:
        """Install the runtime of ``command``; progress lines go to ``on_progress``."""
        log: list[str] = []
        runtime = runtime_for(command)
        if runtime is None:
            return DependencyInstallResult(command=command, success=False, error=_unknown(command))
        if runtime.system_package is not None:
            return await self._install_system(command, runtime, on_progress)
        if runtime.install is None:
            return DependencyInstallResult(
                command=command,
                success=False,
                error=f"{runtime.title} cannot be installed by the app; install it by hand (see instructions).",
                instructions=instructions_for(runtime),
            )

        def report(line: str) -> None:
            """Keep the line for the result and pass it to ``on_progress``."""
            log.append(line)
            if on_progress is not None:
                on_progress(line)

        try:
            if runtime.install.index == "pypi":
                await self._install_pypi(runtime, report)
            else:
                await self._install_npm(runtime, report)
            targets = await asyncio.to_thread(self._expose, runtime)
            version = await self._version(targets[runtime.probe_command], runtime)
        except InstallFailed as exc:
            report(f"failed: {exc}")
            return DependencyInstallResult(
                command=command, success=False, log=log, error=str(exc), instructions=instructions_for(runtime)
            )
        report(f"{runtime.title} {version or ''} is ready in {self.bin_dir}".replace("  ", " "))
        path = targets.get(command_name(command), targets[runtime.probe_command])
        return DependencyInstallResult(command=command, success=True, path=str(path), version=version, log=log)

    async def uninstall(self, command: str) -> DependencyInstallResult:
        """Remove a managed runtime (its folder and its commands in ``tools/bin``)."""
        runtime = runtime_for(command)
        if runtime is None:
            return DependencyInstallResult(command=command, success=False, error=_unknown(command))
        home = self.tools_dir / runtime.name
        if not home.exists():
            return DependencyInstallResult(
                command=command,
                success=False,
                error=f"{runtime.title} was not installed by the app (nothing in {home}); "
                "remove it the way you installed it.",
            )
        removed = await asyncio.to_thread(self._remove, runtime)
        return DependencyInstallResult(command=command, success=True, log=[f"removed {p}" for p in removed])

    async def _install_system(
        self, command: str, runtime: Runtime, on_progress: ProgressCallback | None
    ) -> DependencyInstallResult:
        """Run the system package manager where the plan allows it; else say the command to run."""
        search = await command_search_path(self.tools_dir, self._path)
        plan = plan_here(runtime, search)
        how = how_to_install(runtime, search)
        if plan.argv is None:
            error = f"{runtime.title} cannot be installed by the app here. {plan.text}"
            return DependencyInstallResult(command=command, success=False, error=error, instructions=how)
        log: list[str] = []

        def report(line: str) -> None:
            """Keep the line for the result and pass it to ``on_progress``."""
            log.append(line)
            if on_progress is not None:
                on_progress(line)

        manager = find_command(plan.argv[0], search) or plan.argv[0]
        report(f"running {' '.join(plan.argv)}")
        try:
            await self._stream([manager, *plan.argv[1:]], report, " ".join(plan.argv[:2]), APT_ENV)
            program = find_command(runtime.probe_command, search)
            if program is None:
                raise InstallFailed(f"the package was installed but {quoted(runtime.probe_command)} is not on the PATH")
            version = await self._version(Path(program), runtime)
        except InstallFailed as exc:
            report(f"failed: {exc}")
            return DependencyInstallResult(command=command, success=False, log=log, error=str(exc), instructions=how)
        report(f"{runtime.title} {version or ''} is installed at {program}".replace("  ", " "))
        return DependencyInstallResult(command=command, success=True, path=program, version=version, log=log)

    async def _install_pypi(self, runtime: Runtime, report: ProgressCallback) -> None:
        assert runtime.install is not None
        home = self.tools_dir / runtime.name
        python = home / ("Scripts" if _WINDOWS else "bin") / _exe("python")
        fresh = not python.exists()
        try:
            if fresh:
                report(f"creating a private environment in {home}")
                await self._stream([self._python, "-m", "venv", str(home)], report, "creating the environment")
            report(f"installing {runtime.install.package} from PyPI")
            pip = [str(python), "-m", "pip", "install", "--upgrade", "--disable-pip-version-check"]
            await self._stream([*pip, "--progress-bar", "off", runtime.install.package], report, "pip install")
        except BaseException:
            if fresh:
                await asyncio.to_thread(shutil.rmtree, home, True)
            raise

    async def _install_npm(self, runtime: Runtime, report: ProgressCallback) -> None:
        assert runtime.install is not None
        search = await command_search_path(self.tools_dir, self._path)
        npm = find_command(runtime.install.needs or "npm", search)
        if npm is None:
            raise InstallFailed(
                f"installing {runtime.title} needs npm (Node.js), which is not on the PATH; "
                "install Node.js first or install it by hand"
            )
        home = self.tools_dir / runtime.name
        fresh = not home.exists()
        report(f"installing {runtime.install.package} from the npm registry into {home}")
        argv = [npm, "install", "--global", "--prefix", str(home), "--no-fund", "--no-audit", runtime.install.package]
        try:
            await self._stream(argv, report, "npm install")
        except BaseException:
            if fresh:
                await asyncio.to_thread(shutil.rmtree, home, True)
            raise

    async def _stream(
        self, argv: list[str], report: ProgressCallback, step: str, extra_env: dict[str, str] | None = None
    ) -> None:
        """Run one step, sending each output line to ``report``; raise ``InstallFailed`` on failure."""
        env = os.environ | {"PYTHONUNBUFFERED": "1", "PIP_NO_INPUT": "1"} | (extra_env or {})
        try:
            proc = await start(argv, env)
        except OSError as exc:
            raise InstallFailed(f"{step}: cannot run {argv[0]}: {exc.strerror or exc}") from exc
        try:
            code = await asyncio.wait_for(_pump(proc, report), self._timeout)
        except TimeoutError:
            raise InstallFailed(f"{step} took longer than {self._timeout:.0f} s and was stopped") from None
        finally:
            if proc.returncode is None:
                await asyncio.shield(kill_tree(proc))
        if code != 0:
            raise InstallFailed(f"{step} exited with code {code} (see the log above)")

    def _sources(self, runtime: Runtime) -> dict[str, Path]:
        """Each command of ``runtime`` -> the installed file providing it."""
        home = self.tools_dir / runtime.name
        assert runtime.install is not None
        if runtime.install.index == "pypi":
            folder = home / ("Scripts" if _WINDOWS else "bin")
            return {c: folder / _exe(c) for c in runtime.commands}
        folder = home if _WINDOWS else home / "bin"
        names = {c: (f"{c}.cmd" if _WINDOWS else c) for c in runtime.commands}
        return {c: folder / n for c, n in names.items()}

    def _expose(self, runtime: Runtime) -> dict[str, Path]:
        """Link the installed commands into ``tools/bin``; returns command -> its file there."""
        self.bin_dir.mkdir(parents=True, exist_ok=True)
        exposed: dict[str, Path] = {}
        for command, source in self._sources(runtime).items():
            if not source.exists():
                continue
            target = self.bin_dir / source.name
            if target.is_symlink() or target.exists():
                target.unlink()
            if not _WINDOWS:
                target.symlink_to(source)
            elif source.suffix == ".exe":
                shutil.copy2(source, target)
            else:
                target.write_text(f'@"{source}" %*\r\n', encoding="utf-8")
            exposed[command] = target
        if runtime.probe_command not in exposed:
            raise InstallFailed(f"the package was installed but provides no {quoted(runtime.probe_command)} command")
        return exposed

    def _remove(self, runtime: Runtime) -> list[str]:
        removed: list[str] = []
        for source in self._sources(runtime).values():
            target = self.bin_dir / source.name
            if target.is_symlink() or target.exists():
                target.unlink()
                removed.append(str(target))
        home = self.tools_dir / runtime.name
        shutil.rmtree(home, ignore_errors=True)
        removed.append(str(home))
        return removed

    async def _version(self, program: Path, runtime: Runtime) -> str | None:
        try:
            code, out = await run_capture([str(program), *runtime.version_args], VERIFY_TIMEOUT)
        except TimeoutError:
            raise InstallFailed(f"'{program.name} --version' did not answer within {VERIFY_TIMEOUT:.0f} s") from None
        except OSError as exc:
            raise InstallFailed(f"the installed {program.name} does not run: {exc.strerror or exc}") from exc
        if code != 0:
            raise InstallFailed(f"'{program.name} --version' exited with code {code}")
        version = parse_version(out)
        return ".".join(map(str, version)) if version else None


async def _pump(proc: asyncio.subprocess.Process, report: ProgressCallback) -> int:
    assert proc.stdout is not None
    async for raw in proc.stdout:
        line = raw.decode(errors="replace").rstrip()
        if line:
            report(line)
    return await proc.wait()


def _unknown(command: str) -> str:
    from elftia_desktop.deps.requirements import RUNTIMES

    known = ", ".join(c for r in RUNTIMES if r.install or r.system_package for c in r.commands)
    return f"{quoted(command)} is not a runtime the app knows; it can install: {known}"


async def install(command: str, on_progress: ProgressCallback | None = None) -> DependencyInstallResult:
    """Install the runtime of ``command`` into the default tools folder."""
    return await DependencyInstaller().install(command, on_progress)


async def uninstall(command: str) -> DependencyInstallResult:
    """Remove a runtime the app installed from the default tools folder."""
    return await DependencyInstaller().uninstall(command)
