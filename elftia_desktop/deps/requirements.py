"""The runtimes stdio servers are started with, as a declarative table.

In the style of Spyder's ``dependencies.py``: each entry says which commands belong to the
runtime, how to probe it (``--version`` of its main command, parsed by a pattern), the minimum
version where one matters, why a user needs it, how to install it on each OS (exact commands),
and whether the app can install it itself into its tools folder (from PyPI or the npm registry).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from typing import Literal

OsName = Literal["linux", "macos", "windows"]
PackageIndex = Literal["pypi", "npm"]

_VERSION = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")


@dataclass(frozen=True)
class ManagedInstall:
    """How the app installs a runtime without admin rights into its tools folder."""

    index: PackageIndex
    """Where the package comes from: ``pypi`` (a private venv) or ``npm`` (a private prefix)."""
    package: str
    """The package name in that index."""
    needs: str | None = None
    """A command that must be on the system first (``npm`` for npm packages)."""


@dataclass(frozen=True)
class Runtime:
    """One runtime and the commands that belong to it."""

    name: str
    """Runtime id, e.g. ``node``."""
    title: str
    """Human name, e.g. ``Node.js``."""
    commands: tuple[str, ...]
    """Commands a server may be started with; the first is the one probed for the version."""
    reason: str
    """Why a user needs it."""
    instructions: dict[OsName, str]
    """How to install it by hand on each OS, with exact commands."""
    homepage: str
    minimum: tuple[int, ...] | None = None
    """The lowest version that works, if any."""
    version_args: tuple[str, ...] = ("--version",)
    install: ManagedInstall | None = None
    """None when the app cannot install it into its tools folder."""
    system_package: str | None = None
    """The OS package providing it, installed by :mod:`~elftia_desktop.deps.system_package` where it can."""
    aliases: tuple[str, ...] = field(default=())
    """Other spellings that map to this runtime (``python3.12``, ``npm``)."""

    @property
    def probe_command(self) -> str:
        """The command whose ``--version`` gives the runtime's version."""
        return self.commands[0]

    @property
    def minimum_text(self) -> str | None:
        """The minimum version as text (``18``), or None."""
        return ".".join(map(str, self.minimum)) if self.minimum else None


RUNTIMES: tuple[Runtime, ...] = (
    Runtime(
        name="node",
        title="Node.js",
        commands=("node", "npx"),
        aliases=("npm",),
        minimum=(18,),
        reason='Servers published on npm start with "npx -y <package>" (filesystem, memory, everything ...).',
        homepage="https://nodejs.org/",
        instructions={
            "linux": (
                "Install Node.js 18 or newer (it brings npm and npx).\n"
                "  Debian/Ubuntu: sudo apt-get install nodejs npm   (then check: node --version)\n"
                "  Fedora:        sudo dnf install nodejs\n"
                "  Arch:          sudo pacman -S nodejs npm\n"
                "  Without admin rights (nvm):\n"
                "    curl -o- https://raw.githubusercontent.com/nvm-sh/nvm/v0.40.3/install.sh | bash\n"
                "    nvm install --lts"
            ),
            "macos": (
                "Install Node.js 18 or newer (it brings npm and npx).\n"
                "  Homebrew:  brew install node\n"
                "  Or the installer from https://nodejs.org/en/download"
            ),
            "windows": (
                "Install Node.js 18 or newer (it brings npm and npx).\n"
                "  winget install OpenJS.NodeJS.LTS\n"
                "  Or the installer from https://nodejs.org/en/download"
            ),
        },
    ),
    Runtime(
        name="uv",
        title="uv",
        commands=("uv", "uvx"),
        reason='Servers published on PyPI start with "uvx <package>" (fetch, time, git, sqlite ...).',
        homepage="https://docs.astral.sh/uv/",
        install=ManagedInstall(index="pypi", package="uv"),
        instructions={
            "linux": "curl -LsSf https://astral.sh/uv/install.sh | sh\n  or: pipx install uv",
            "macos": "brew install uv\n  or: curl -LsSf https://astral.sh/uv/install.sh | sh",
            "windows": (
                "winget install --id=astral-sh.uv -e\n"
                '  or: powershell -ExecutionPolicy ByPass -c "irm https://astral.sh/uv/install.ps1 | iex"'
            ),
        },
    ),
    Runtime(
        name="python",
        title="Python",
        commands=("python", "python3"),
        aliases=("py",),
        minimum=(3, 10),
        reason='Servers written in Python start with "python -m <module>"; the MCP SDK needs Python 3.10 or newer.',
        homepage="https://www.python.org/downloads/",
        instructions={
            "linux": (
                "Debian/Ubuntu: sudo apt-get install python3 python3-venv\n"
                "  Fedora:        sudo dnf install python3\n"
                "  Arch:          sudo pacman -S python"
            ),
            "macos": "brew install python\n  or the installer from https://www.python.org/downloads/macos/",
            "windows": "winget install Python.Python.3.12\n  or the installer from https://www.python.org/downloads/windows/",
        },
    ),
    Runtime(
        name="bun",
        title="Bun",
        commands=("bun", "bunx"),
        reason='Some servers start with "bunx <package>" or "bun run".',
        homepage="https://bun.sh/",
        install=ManagedInstall(index="npm", package="bun", needs="npm"),
        instructions={
            "linux": "curl -fsSL https://bun.sh/install | bash\n  or (with Node.js): npm install -g bun",
            "macos": "brew install oven-sh/bun/bun\n  or: curl -fsSL https://bun.sh/install | bash",
            "windows": 'powershell -c "irm bun.sh/install.ps1 | iex"\n  or (with Node.js): npm install -g bun',
        },
    ),
    Runtime(
        name="docker",
        title="Docker",
        commands=("docker",),
        reason='Servers shipped as container images start with "docker run -i --rm <image>".',
        homepage="https://docs.docker.com/get-docker/",
        instructions={
            "linux": (
                "Debian/Ubuntu: sudo apt-get install docker.io && sudo usermod -aG docker $USER  (then log in again)\n"
                "  Fedora:        sudo dnf install moby-engine && sudo systemctl enable --now docker\n"
                "  Other: https://docs.docker.com/engine/install/"
            ),
            "macos": "brew install --cask docker   (Docker Desktop; start it once from Applications)",
            "windows": "winget install Docker.DockerDesktop   (needs WSL 2; start Docker Desktop once)",
        },
    ),
    Runtime(
        name="deno",
        title="Deno",
        commands=("deno",),
        reason='Some servers start with "deno run <url or module>".',
        homepage="https://deno.com/",
        install=ManagedInstall(index="npm", package="deno", needs="npm"),
        instructions={
            "linux": "curl -fsSL https://deno.land/install.sh | sh",
            "macos": "brew install deno\n  or: curl -fsSL https://deno.land/install.sh | sh",
            "windows": 'winget install DenoLand.Deno\n  or: powershell -c "irm https://deno.land/install.ps1 | iex"',
        },
    ),
    Runtime(
        name="pipx",
        title="pipx",
        commands=("pipx",),
        reason='Some servers start with "pipx run <package>".',
        homepage="https://pipx.pypa.io/",
        install=ManagedInstall(index="pypi", package="pipx"),
        instructions={
            "linux": (
                "sudo apt-get install pipx\n  or: python3 -m pip install --user pipx && python3 -m pipx ensurepath"
            ),
            "macos": "brew install pipx && pipx ensurepath",
            "windows": "py -m pip install --user pipx && py -m pipx ensurepath",
        },
    ),
    Runtime(
        name="bubblewrap",
        title="bubblewrap",
        commands=("bwrap",),
        reason="Runs local (stdio) servers in a sandbox on Linux: only the files and network you allow.",
        homepage="https://github.com/containers/bubblewrap",
        system_package="bubblewrap",
        instructions={
            "linux": (
                "Debian/Ubuntu: sudo apt-get install bubblewrap\n"
                "  Fedora:        sudo dnf install bubblewrap\n"
                "  Arch:          sudo pacman -S bubblewrap"
            ),
            "macos": "Not needed on macOS: servers are sandboxed with the built-in sandbox-exec.",
            "windows": "Not available: there is no sandbox on Windows, so local servers run with your rights.",
        },
    ),
)

_EXECUTABLE_SUFFIXES = (".exe", ".cmd", ".bat", ".ps1", ".com")
_PYTHON_NAME = re.compile(r"^python(\d+(\.\d+)?)?w?$")


def current_os() -> OsName:
    """The OS this process runs on, as used by ``Runtime.instructions``."""
    if sys.platform == "win32":
        return "windows"
    if sys.platform == "darwin":
        return "macos"
    return "linux"


def command_name(command: str) -> str:
    """The bare program name of a command: ``C:\\nodejs\\npx.cmd`` -> ``npx``."""
    base = re.split(r"[\\/]", command.strip())[-1].lower()
    for suffix in _EXECUTABLE_SUFFIXES:
        if base.endswith(suffix):
            return base[: -len(suffix)]
    return base


def runtime_for(command: str) -> Runtime | None:
    """The runtime a command (a name or a path) belongs to, or None for an unknown program."""
    name = command_name(command)
    if _PYTHON_NAME.match(name):
        name = "python"
    for runtime in RUNTIMES:
        if name == runtime.name or name in runtime.commands or name in runtime.aliases:
            return runtime
    return None


def instructions_for(runtime: Runtime, os_name: OsName | None = None) -> str:
    """How to install ``runtime`` on ``os_name`` (default: this OS), with its homepage."""
    text = runtime.instructions[os_name or current_os()]
    return f"{runtime.title}: {text}\n  More: {runtime.homepage}"


def parse_version(text: str) -> tuple[int, ...] | None:
    """The first ``X.Y[.Z]`` in a ``--version`` output, as numbers."""
    match = _VERSION.search(text)
    if match is None:
        return None
    return tuple(int(part) for part in match.groups() if part is not None)


def meets_minimum(version: tuple[int, ...] | None, minimum: tuple[int, ...] | None) -> bool:
    """True when there is no minimum, or ``version`` is known and at least ``minimum``."""
    if minimum is None:
        return True
    if version is None:
        return False
    width = max(len(version), len(minimum))
    return version + (0,) * (width - len(version)) >= minimum + (0,) * (width - len(minimum))
