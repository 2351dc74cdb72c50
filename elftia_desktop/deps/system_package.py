"""Runtimes that come from the OS's package manager (bubblewrap): what the app may run, what it says.

The app installs such a package itself only where that is safe without asking: on Linux, as root,
with ``apt-get`` (``apt-get install -y <package>``, non-interactive). Elsewhere on Linux the page
says the exact command to run (``sudo apt-get install``, or ``dnf``/``pacman`` where those exist);
on macOS and Windows the runtime's own text says why there is nothing to install.
The decision (:func:`system_plan`) takes the OS, root and the package managers present as facts.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass

from elftia_desktop.deps.requirements import OsName, Runtime, current_os, instructions_for
from elftia_desktop.platform.commands import find_command
from elftia_desktop.platform.runtime import user_id

MANAGERS: tuple[tuple[str, str], ...] = (
    ("apt-get", "apt-get install {}"),
    ("dnf", "dnf install {}"),
    ("pacman", "pacman -S {}"),
)
"""Package managers in the order they are offered, with the command a user types."""
APT_ENV = {"DEBIAN_FRONTEND": "noninteractive", "APT_LISTCHANGES_FRONTEND": "none"}
"""Set for the app's own ``apt-get`` run, so no prompt or pager ever waits for an answer."""


@dataclass(frozen=True)
class SystemPlan:
    """How a system package gets onto this machine."""

    argv: tuple[str, ...] | None
    """What the app runs itself (the Install button), or None when it cannot install it here."""
    text: str
    """What the page says: the exact command to run, or why there is nothing to install."""


def system_plan(runtime: Runtime, os_name: OsName, is_root: bool, available: Callable[[str], bool]) -> SystemPlan:
    """The plan for ``runtime`` (which has a ``system_package``) given the facts of this machine."""
    package = runtime.system_package
    assert package is not None
    if os_name != "linux":
        return SystemPlan(None, runtime.instructions[os_name])
    present = [(name, typed.format(package)) for name, typed in MANAGERS if available(name)]
    if not present:
        return SystemPlan(None, runtime.instructions["linux"])
    if is_root and present[0][0] == "apt-get":
        argv = ("apt-get", "install", "-y", package)
        return SystemPlan(argv, f"Press Install: the app runs {shlex.join(argv)} (you are root).")
    prefix = "" if is_root else "sudo "
    commands = "\n".join(f"  {prefix}{typed}" for _, typed in present)
    return SystemPlan(None, f"Run this in a terminal (it needs admin rights), then press Check again:\n{commands}")


def plan_here(runtime: Runtime, search: str | None = None) -> SystemPlan:
    """:func:`system_plan` for this machine (package managers looked up on ``search``, default ``PATH``)."""
    return system_plan(runtime, current_os(), user_id() == 0, lambda name: find_command(name, search) is not None)


def how_to_install(runtime: Runtime, search: str | None = None) -> str:
    """The install text the page shows for ``runtime`` on this machine, with its homepage."""
    if runtime.system_package is None:
        return instructions_for(runtime)
    return f"{runtime.title}: {plan_here(runtime, search).text}\n  More: {runtime.homepage}"
