"""A stdio server's sandbox profile (the record's ``"sandbox"``): what it may read, write and reach.

The profile is part of the trust fingerprint (``core/trust.py``): a change that lets the server do
more than what the user confirmed (sandbox off, a new path, a wider network) asks again; a change
that lets it do less does not. How the profile is enforced is the platform's business
(``platform/sandbox*.py``); this module is pure data and the words shown to the user.
"""

from __future__ import annotations

import os
import re
from typing import Any, Literal

from pydantic import Field, field_validator

from elftia_desktop.core.model_base import CamelModel
from elftia_desktop.core.text_rules import check_no_control, quoted
from elftia_desktop.platform.sandbox import sandbox_support

NetMode = Literal["none", "loopback", "any", "allow"]
"""``none``: no network; ``loopback``: only this machine; ``any``: everything; ``allow``: the listed hosts."""
NET_ORDER: dict[str, int] = {"none": 0, "loopback": 1, "allow": 2, "any": 3}
"""How much each network mode lets through (an ``allow`` list is compared host by host)."""
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
"""The hosts ``loopback`` mode lets the server reach (through the sandbox's proxy)."""
HOST_PATTERN = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9*][A-Za-z0-9.*-]*)(:[0-9]{1,5})?\Z")


class McpSandbox(CamelModel):
    """Where a stdio server may read, write and connect when it runs in a sandbox."""

    enabled: bool = True
    """Run the server in the sandbox (off: it runs with all the user's rights)."""
    allow_read: list[str] = Field(default_factory=list)
    """Folders or files the server may read (absolute paths; ``~`` is the user's home)."""
    allow_write: list[str] = Field(default_factory=list)
    """Folders or files the server may read and write."""
    net: NetMode = "none"
    """The network: ``none``, ``loopback``, ``any``, or ``allow`` (only ``allow_net``)."""
    allow_net: list[str] = Field(default_factory=list)
    """``host`` or ``host:port`` the server may reach when ``net`` is ``allow`` (``*.example.com`` too)."""

    @field_validator("allow_read", "allow_write")
    @classmethod
    def _paths_are_absolute(cls, paths: list[str]) -> list[str]:
        for path in paths:
            check_no_control(path)
            if not (path.startswith(("/", "~")) or re.match(r"^[A-Za-z]:[\\/]", path)):
                raise ValueError(f"sandbox path {quoted(path)} must be absolute (start with / or ~)")
        return list(dict.fromkeys(paths))

    @field_validator("allow_net")
    @classmethod
    def _hosts_are_hosts(cls, hosts: list[str]) -> list[str]:
        for host in hosts:
            if not HOST_PATTERN.match(host):
                raise ValueError(f"sandbox host {quoted(host)} is not a host or host:port (e.g. api.github.com:443)")
        return list(dict.fromkeys(h.lower() for h in hosts))

    def fingerprint(self) -> dict[str, Any]:
        """The profile as it goes into the trust fingerprint (sorted, so order never asks again)."""
        return {
            "enabled": self.enabled,
            "read": sorted(self.allow_read),
            "write": sorted(self.allow_write),
            "net": self.net,
            "hosts": sorted(self.allow_net) if self.net == "allow" else [],
        }


def sandbox_changes(confirmed: dict[str, Any] | None, now: dict[str, Any] | None) -> list[tuple[str, Any, Any]]:
    """``(field, confirmed, now)`` for each way ``now`` lets the server do more than ``confirmed``.

    ``None`` is "no sandbox" (all the user's rights). A tighter profile yields nothing.
    """
    if now is None or not now.get("enabled"):
        was_on = confirmed is not None and confirmed.get("enabled")
        return [("sandbox", "on", "off")] if was_on else []
    if confirmed is None or not confirmed.get("enabled"):
        return []
    changes: list[tuple[str, Any, Any]] = []
    for key, label in (("read", "sandbox may read"), ("write", "sandbox may write")):
        added = sorted(set(now[key]) - set(confirmed.get(key, [])))
        if added:
            changes.append((label, ", ".join(confirmed.get(key, [])) or "(nothing)", ", ".join(now[key])))
    if _net_wider(confirmed, now):
        changes.append(("sandbox network", _net_text(confirmed), _net_text(now)))
    return changes


def _net_wider(confirmed: dict[str, Any], now: dict[str, Any]) -> bool:
    before, after = confirmed.get("net", "none"), now["net"]
    if before == after == "allow":
        return bool(set(now["hosts"]) - set(confirmed.get("hosts", [])))
    return NET_ORDER[after] > NET_ORDER.get(before, 0)


def _net_text(profile: dict[str, Any]) -> str:
    net = profile.get("net", "none")
    return f"allow {', '.join(profile.get('hosts', [])) or '(no host)'}" if net == "allow" else str(net)


def describe_sandbox(sandbox: McpSandbox | None, support: str | None) -> list[tuple[str, str]]:
    """Trust-prompt rows saying what the server may touch. ``support``: why no sandbox works here, or None."""
    if sandbox is None or not sandbox.enabled:
        return [("Sandbox", "off: the server runs with all your rights (your files, network, environment)")]
    if support is not None:
        return [("Sandbox", f"on, but {support}: the server runs with all your rights")]
    rows = [("Sandbox", "on: the system read-only, its own runtime, working folder and a private /tmp")]
    rows.append(("May read", ", ".join(sandbox.allow_read) or "(nothing else)"))
    rows.append(("May write", ", ".join(sandbox.allow_write) or "(nothing else)"))
    net = sandbox.net
    rows.append(("Network", f"only {', '.join(sandbox.allow_net) or '(no host)'}" if net == "allow" else net))
    return rows


def preset_sandbox(profile: dict[str, Any], values: dict[str, str]) -> McpSandbox:
    """A sandbox from a preset's profile, its paths taken from the values the user filled in.

    ``profile``: the sandbox's own fields plus ``writeValues`` (keys of arguments or environment
    variables that are folders it writes: filesystem's folder, git's repository) and
    ``writeParentOf`` (keys that are files it creates: the folder holding them).
    """
    data = {k: v for k, v in profile.items() if k not in ("writeValues", "writeParentOf")}
    write = [values[k] for k in profile.get("writeValues", []) if values.get(k)]
    write += [
        os.path.dirname(values[k]) for k in profile.get("writeParentOf", []) if os.path.dirname(values.get(k, ""))
    ]
    sandbox = McpSandbox.model_validate(data)
    sandbox.allow_write = list(dict.fromkeys([*sandbox.allow_write, *(w for w in write if w.startswith(("/", "~")))]))
    return sandbox


def sandbox_unavailable() -> str | None:
    """None when servers can be sandboxed on this machine; otherwise why not (for the form and prompts)."""
    return sandbox_support()


PACKAGE_HOSTS = ["registry.npmjs.org:443", "pypi.org:443", "files.pythonhosted.org:443"]
"""What a default sandbox may reach: the package registries ``npx`` and ``uvx`` install from."""


def default_sandbox() -> McpSandbox:
    """The profile of a server from a registry, an import, pasted JSON or a link: files and environment
    confined, the network only to the package registries."""
    return McpSandbox(net="allow", allow_net=list(PACKAGE_HOSTS))


BLOCKED_PREFIX = "[sandbox] blocked: "
"""How a denial starts in a server's log: ``network HOST:PORT (…)``, ``network (…)`` or ``file PATH (…)``."""
_BLOCKED = re.compile(r"^(?:network (?P<host>\S+:\d+) |file (?P<path>/.*) )\((?P<why>[^()]*)\)$")


def allow_blocked(sandbox: McpSandbox | None, what: str) -> McpSandbox | None:
    """``sandbox`` loosened to allow one denial (``what``: the log line after ``BLOCKED_PREFIX``).

    A refused host joins the allow-list (the network becomes ``allow``); a hidden path may be read, a
    path it may not write may be written. None when ``what`` names nothing one can allow.
    """
    match = _BLOCKED.match(what.strip())
    if sandbox is None or match is None:
        return None
    after = sandbox.model_copy(deep=True)
    if match["host"]:
        if after.net == "any":
            return None
        base = list(LOOPBACK_HOSTS) if after.net == "loopback" else after.allow_net if after.net == "allow" else []
        after.net, after.allow_net = "allow", list(dict.fromkeys([*base, match["host"].lower()]))
    elif match["why"] == "not allowed":
        after.allow_write = list(dict.fromkeys([*after.allow_write, match["path"]]))
    else:
        after.allow_read = list(dict.fromkeys([*after.allow_read, match["path"]]))
    return after
