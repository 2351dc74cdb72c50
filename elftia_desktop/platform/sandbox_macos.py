"""The macOS sandbox: a ``sandbox-exec`` profile (SBPL) generated from a ``SandboxSpec``.

Everything is denied but what the spec allows: reading the system, the runtime and the allowed
paths; writing the allowed paths and a private temporary folder; the network not at all
(``none``), fully (``any``), or only the app's proxy on the loopback port (``proxy``).
"""

from __future__ import annotations

from elftia_desktop.platform.sandbox import SandboxSpec

SYSTEM_READ = ("/usr", "/bin", "/sbin", "/System", "/Library", "/private/etc", "/private/var/db", "/dev", "/opt")
"""The system paths a macOS process reads to start (read-only)."""


def _quoted(path: str) -> str:
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'


def sandbox_profile(spec: SandboxSpec) -> str:
    """The SBPL profile text enforcing ``spec``."""
    lines = [
        "(version 1)",
        "(deny default)",
        "(allow process-fork process-exec signal sysctl-read mach-lookup ipc-posix-shm)",
        '(allow file-read-metadata (literal "/"))',
    ]
    read = [*SYSTEM_READ, *spec.read]
    lines.append("(allow file-read* " + " ".join(f"(subpath {_quoted(p)})" for p in read) + ")")
    write = ["/private/tmp", "/private/var/folders", *spec.write]
    lines.append("(allow file-read* file-write* " + " ".join(f"(subpath {_quoted(p)})" for p in write) + ")")
    lines.append('(allow file-write* (literal "/dev/null") (literal "/dev/tty"))')
    if spec.net == "any":
        lines.append("(allow network*)")
    elif spec.net == "proxy" and spec.proxy is not None:
        lines.append(f'(allow network-outbound (remote ip "localhost:{spec.proxy.port}"))')
    return "\n".join(lines) + "\n"


def sandbox_exec_argv(spec: SandboxSpec) -> list[str]:
    """``sandbox-exec -p PROFILE command...``."""
    return ["sandbox-exec", "-p", sandbox_profile(spec), *spec.argv]
