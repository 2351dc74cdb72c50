"""The bubblewrap command line for a ``SandboxSpec``.

The system folders read-only, a fresh ``/proc``, ``/dev`` and private ``/tmp``, the home folder an
empty tmpfs with only the spec's paths bound into it, its own user, PID, IPC, UTS (and, unless the
network is ``any``, network) namespaces, the home read-only, and ``--die-with-parent`` so the whole tree goes with the
app's process. In ``proxy`` mode the server starts under ``sandbox_forward.py``, which serves the
proxy port on the sandbox's own loopback and passes each connection to the app's proxy socket (in the
frozen app, which has no script to run, its own executable with ``--run-sandbox-forward``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from elftia_desktop.platform.sandbox import INSIDE_DIR, SandboxSpec
from elftia_desktop.platform.sandbox_forward import FORWARD_FLAG

SYSTEM_DIRS = ("/usr", "/etc", "/opt", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/run/systemd/resolve")
"""Shown read-only (symlinks such as ``/bin -> usr/bin`` kept as symlinks)."""
FORWARD_SCRIPT = Path(__file__).with_name("sandbox_forward.py")


def bwrap_argv(spec: SandboxSpec, bwrap: str) -> list[str]:
    """``bwrap [options] -- command`` enforcing ``spec``."""
    argv = [bwrap, "--die-with-parent", "--unshare-user-try", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
    argv += ["--unshare-cgroup-try"]
    if spec.net != "any":
        argv.append("--unshare-net")
    argv += _system()
    argv += ["--proc", "/proc", "--dev", "/dev"]
    argv += _mounts(spec)
    argv += ["--remount-ro", spec.home]  # the empty home: nothing written there survives, so nothing may be
    argv += ["--chdir", spec.cwd or spec.home]
    return [*argv, "--", *_command(spec)]


def _system() -> list[str]:
    out: list[str] = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            out += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            out += ["--ro-bind", path, path]
    return out


def _mounts(spec: SandboxSpec) -> list[str]:
    """A private ``/tmp``, the home tmpfs and every allowed path, parents before children (a deeper bind wins)."""
    mounts: list[tuple[str, list[str]]] = [("/tmp", ["--tmpfs", "/tmp"]), (spec.home, ["--tmpfs", spec.home])]
    mounts += [(p, ["--ro-bind-try", p, p]) for p in spec.read]
    mounts += [(p, ["--bind-try", p, p]) for p in spec.write]
    if spec.proxy is not None and spec.proxy.socket_dir is not None:
        mounts.append((INSIDE_DIR, ["--bind", spec.proxy.socket_dir, INSIDE_DIR]))
        if not _frozen():
            mounts.append((f"{INSIDE_DIR}/forward.py", ["--ro-bind", str(FORWARD_SCRIPT), f"{INSIDE_DIR}/forward.py"]))
    out: list[str] = []
    for _, options in sorted(mounts, key=lambda item: item[0].rstrip("/").count("/")):
        out += options
    return out


def _command(spec: SandboxSpec) -> list[str]:
    proxy = spec.proxy
    if spec.net != "proxy" or proxy is None or proxy.python is None:
        return spec.argv
    sock = f"{INSIDE_DIR}/proxy.sock"
    return [*forwarder_argv(proxy.python), sock, str(proxy.port), "--", *spec.argv]


def forwarder_argv(executable: str) -> list[str]:
    """How ``executable`` runs the forwarder: the script with an isolated Python, or the frozen app's flag."""
    if _frozen():
        return [executable, FORWARD_FLAG]
    return [executable, "-I", "-S", f"{INSIDE_DIR}/forward.py"]


def _frozen() -> bool:
    """True in the PyInstaller bundle, where ``sys.executable`` is the app and no ``.py`` file exists."""
    return bool(getattr(sys, "frozen", False))
