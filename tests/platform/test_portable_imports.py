"""Every module of ``elftia_desktop`` imports where POSIX-only modules and calls do not exist (as on Windows).

A subprocess imports each module (``pkgutil.walk_packages``) after making ``fcntl``, ``termios``,
``resource``, ``pwd`` and ``grp`` raise ImportError when the package's own code imports them, and
removing the POSIX-only functions of ``os`` and ``signal`` (``os.getuid``, ``os.killpg``,
``signal.SIGKILL``...). Only ``elftia_desktop/platform/`` may use them, lazily inside the branch
that needs them; any other module that does fails here, by name.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

CHILD = r"""
import builtins, importlib, json, os, pkgutil, sys, traceback, types

BLOCKED = {"fcntl", "termios", "resource", "pwd", "grp"}
HIDDEN = {
    "os": {"getuid", "geteuid", "getgid", "getegid", "getgroups", "killpg", "getpgid", "setsid", "getpgrp",
           "setpgid", "fork", "forkpty", "pidfd_open", "mkfifo", "setuid", "getloadavg"},
    "signal": {"SIGKILL", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGCHLD", "SIGALRM", "SIGPIPE", "SIGSTOP",
               "SIGCONT", "pidfd_send_signal", "setitimer", "siginterrupt", "pthread_sigmask", "alarm"},
    "socket": {"AF_UNIX", "SO_PEERCRED", "SCM_RIGHTS", "send_fds", "recv_fds"},
}
STRIPPED = {}
real_import = builtins.__import__

def stripped(module):
    # the module as Windows has it: its POSIX-only names absent
    if module.__name__ not in STRIPPED:
        copy = types.ModuleType(module.__name__, module.__doc__)
        hidden = HIDDEN[module.__name__]
        copy.__dict__.update({k: v for k, v in vars(module).items() if k not in hidden})
        STRIPPED[module.__name__] = copy
    return STRIPPED[module.__name__]

def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
    # the package's own modules (not platform/) see POSIX-only modules missing and os/signal/socket stripped
    importer = (globals or {}).get("__name__") or ""
    own = importer.startswith("elftia_desktop") and not importer.startswith("elftia_desktop.platform")
    if level == 0 and own and name.partition(".")[0] in BLOCKED:
        raise ImportError(f"No module named {name!r} (blocked: POSIX-only)")
    module = real_import(name, globals, locals, fromlist, level)
    if level == 0 and own and name in HIDDEN:
        return stripped(module)
    return module

builtins.__import__ = guarded_import
import elftia_desktop

walk = pkgutil.walk_packages(elftia_desktop.__path__, "elftia_desktop.")
names = [info.name for info in walk if not info.name.endswith(".__main__")]  # a __main__ runs the program
if os.environ.get("PORTABLE_PROBE_PATH"):  # the test of the block itself
    sys.path.insert(0, os.environ["PORTABLE_PROBE_PATH"])
    names.append("elftia_desktop_probe")
failures = {}
for name in names:
    try:
        importlib.import_module(name)
    except BaseException as exc:
        failures[name] = traceback.format_exception_only(exc)[-1].strip()
print(json.dumps(failures))
"""


def blocked_import_failures(probe: Path | None = None) -> dict[str, str]:
    """Module name -> the error it raised, for every module that failed to import in the blocked child.

    ``probe``: a folder holding a module ``elftia_desktop_probe`` the child imports last.
    """
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", ELFTIA_NO_DAEMON="1")
    if probe is not None:
        env["PORTABLE_PROBE_PATH"] = str(probe)
    done = subprocess.run(
        [sys.executable, "-c", CHILD], cwd=REPO, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    failures: dict[str, str] = json.loads(done.stdout.strip().splitlines()[-1])
    return failures


def test_every_module_imports_without_posix_only_parts() -> None:
    """No module outside platform/ (and the listed host/cli ones, until the merge) needs a POSIX-only part."""
    failures = blocked_import_failures()
    assert not failures, "modules that do not import without POSIX-only parts:\n" + "\n".join(
        f"  {name}: {error}" for name, error in sorted(failures.items())
    )


def test_the_block_catches_a_posix_only_import(tmp_path: Path) -> None:
    """The child really blocks: a module named like the package's, importing ``fcntl`` at its top, fails by name."""
    (tmp_path / "elftia_desktop_probe.py").write_text(
        '"""Imports fcntl at its top."""\nimport fcntl\n', encoding="utf-8"
    )
    failures = blocked_import_failures(tmp_path)
    assert "fcntl" in failures.get("elftia_desktop_probe", "")
