"""Running a command in a sandbox, whatever the OS: which sandbox works here and the wrapped command line.

A ``SandboxSpec`` says, in plain paths, what the sandboxed command may read, write and reach;
``wrap`` turns it into the command line that enforces it: bubblewrap on Linux
(``sandbox_linux``), a ``sandbox-exec`` profile on macOS (``sandbox_macos``). Windows has no
sandbox: ``sandbox_support`` says so, and nothing is wrapped there.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass, field
from typing import Literal

SpecNet = Literal["none", "any", "proxy"]
"""``none``: no network; ``any``: the host's; ``proxy``: only the local proxy (``SandboxSpec.proxy``)."""
INSIDE_DIR = "/run/elftia-sandbox"
"""Where, inside a Linux sandbox, the proxy's socket folder and the forwarder script appear."""
NO_WINDOWS = "there is no sandbox on Windows"
PROXY_OVER_SOCKET = sys.platform.startswith("linux")
"""Linux: the sandbox has its own network, so its proxy is a Unix socket bound in; macOS: a loopback port."""


@dataclass
class ProxyLink:
    """How a sandbox reaches its proxy: a Unix socket folder (Linux) or a loopback port (macOS)."""

    port: int
    """The port the server's ``HTTP(S)_PROXY`` names (inside the sandbox on Linux, the proxy's on macOS)."""
    socket_dir: str | None = None
    """Linux: the host folder holding ``proxy.sock``, bound into the sandbox at ``INSIDE_DIR``."""
    python: str | None = None
    """Linux: the interpreter that runs the in-sandbox forwarder (``sandbox_forward.py``), or the frozen app."""


@dataclass
class SandboxSpec:
    """What one sandboxed command may touch, in absolute paths (``~`` already expanded)."""

    argv: list[str]
    home: str
    """The user's home: empty inside, except the paths below that lie in it."""
    cwd: str | None = None
    read: list[str] = field(default_factory=list)
    """Read-only: the server's runtime, the files its arguments name, the paths the user allowed."""
    write: list[str] = field(default_factory=list)
    """Read-write: package caches and the paths the user allowed."""
    net: SpecNet = "none"
    proxy: ProxyLink | None = None


def sandbox_support() -> str | None:
    """None when a sandbox works on this machine; otherwise why not, for the user."""
    if sys.platform.startswith("linux"):
        return None if shutil.which("bwrap") else "bubblewrap (bwrap) is not installed"
    if sys.platform == "darwin":
        return None if shutil.which("sandbox-exec") else "sandbox-exec is missing"
    return NO_WINDOWS


def wrap(spec: SandboxSpec) -> list[str]:
    """The command line that runs ``spec.argv`` inside its sandbox (``RuntimeError`` where none works)."""
    why = sandbox_support()
    if why is not None:
        raise RuntimeError(why)
    if sys.platform == "darwin":
        from elftia_desktop.platform.sandbox_macos import sandbox_exec_argv

        return sandbox_exec_argv(spec)
    from elftia_desktop.platform.sandbox_linux import bwrap_argv

    return bwrap_argv(spec, shutil.which("bwrap") or "bwrap")
