"""Starting a stdio server inside its sandbox: one call between the command line and the spawn.

``sandboxed`` takes the resolved command line and environment and, when the record's sandbox is on,
returns them wrapped (``platform.sandbox.wrap``): the server sees the system read-only, its own
runtime, its working folder, package caches, the paths its profile allows and a private
``/tmp``; its environment is only ``PATH``, ``HOME``, ``LANG``, the TLS trust-store variables and
what the record sets. A
network allow-list (or ``loopback``) runs a ``SandboxProxy`` for the server's lifetime (``HTTP(S)_PROXY``
and, for Node's ``fetch``, ``NODE_USE_ENV_PROXY=1`` set inside). Each
blocked access is written to the server's log as ``[sandbox] blocked: …`` (a host the proxy
refused, a path the server failed to open that exists outside or that it may not write).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import elftia_desktop
from elftia_desktop.connections.sandbox_proxy import SandboxProxy
from elftia_desktop.core.errors import ServerStartFailed
from elftia_desktop.core.models import McpServerRecord, McpServerTransport
from elftia_desktop.core.paths import managed_tools_dir
from elftia_desktop.core.sandbox import BLOCKED_PREFIX, LOOPBACK_HOSTS, McpSandbox
from elftia_desktop.platform.sandbox import PROXY_OVER_SOCKET, ProxyLink, SandboxSpec, SpecNet, sandbox_support, wrap

CACHES = {"npx": ("~/.npm",), "npm": ("~/.npm",), "uvx": ("~/.cache/uv", "~/.local/share/uv")}
"""Package caches each runtime must write to (created if missing, bound read-write)."""
CA_VARIABLES = ("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS")
"""Where the user's trusted TLS roots are: passed into the sandbox (and readable there) so HTTPS works."""
INSIDE_PROXY_PORT = 3128
"""The proxy's port inside a Linux sandbox (its own network namespace: no clash possible)."""
_ERRNO = re.compile(
    r"(?P<code>ENOENT|EACCES|EROFS|EPERM|Errno (?:2|13|30|1)\]|No such file or directory|Permission denied|"
    r"Read-only file system)[^'\"]*?['\"](?P<path>/[^'\"]+)['\"]",
    re.IGNORECASE,
)

_NO_ROUTE = re.compile(
    r"\b(?:ECONNREFUSED|ENETUNREACH|ENOTFOUND|EAI_AGAIN)\b|Connection refused|Network is unreachable|"
    r"Temporary failure in name resolution|Name or service not known",
)

NETWORK_NOTES = {
    "none": "the sandbox has no network",
    "loopback": "only this machine, through the sandbox's proxy",
    "allow": "only the allowed hosts, through the sandbox's proxy",
}
"""What a failed connection means in each network mode (``any``: nothing blocked)."""


@dataclass
class Launch:
    """What to spawn: the command line, its environment, and the stderr sink (denials noted)."""

    argv: list[str]
    env: dict[str, str]
    on_stderr: Callable[[str], None]


def home() -> str:
    """The user's home folder as the sandbox hides it."""
    return os.path.expanduser("~")


@asynccontextmanager
async def sandboxed(
    record: McpServerRecord,
    argv: list[str],
    env: dict[str, str],
    user_env: dict[str, str],
    on_stderr: Callable[[str], None],
) -> AsyncIterator[Launch]:
    """The launch of ``argv`` (``env``: the unsandboxed environment, ``user_env``: the record's, resolved)."""
    sandbox = record.sandbox
    if record.type is not McpServerTransport.STDIO or sandbox is None or not sandbox.enabled:
        yield Launch(argv, env, on_stderr)
        return
    why = sandbox_support()
    if why is not None:
        raise ServerStartFailed(
            f"its sandbox cannot run here: {why}. Install bubblewrap, or turn the sandbox off "
            f"(elftia-mcp sandbox {shlex.quote(record.name)} --off)",
            record.id,
            server_name=record.name,
        )
    spec = build_spec(record, sandbox, argv)
    inner = inner_env(spec, env) | user_env
    note = denial_reader(on_stderr, NETWORK_NOTES.get(sandbox.net))
    if sandbox.net not in ("loopback", "allow"):
        yield Launch(wrap(spec), inner, note)
        return
    allowed = list(LOOPBACK_HOSTS) if sandbox.net == "loopback" else sandbox.allow_net
    proxy = SandboxProxy(allowed, lambda target: on_stderr(f"{BLOCKED_PREFIX}network {target} (not allowed)"))
    folder = tempfile.mkdtemp(prefix="elftia-sb-")
    try:
        spec.net = "proxy"
        spec.proxy = await _start_proxy(proxy, folder)
        url = f"http://127.0.0.1:{spec.proxy.port}"
        inner |= {k: url for k in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")}
        inner["NODE_USE_ENV_PROXY"] = "1"  # Node 22.21+/24.5+ fetch: the proxy only when told; Node 20 ignores it
        yield Launch(wrap(spec), inner, note)
    finally:
        await proxy.close()
        shutil.rmtree(folder, ignore_errors=True)


def inner_env(spec: SandboxSpec, env: dict[str, str]) -> dict[str, str]:
    """The base environment inside: ``PATH``, ``HOME``, ``LANG`` and the TLS trust store (made readable)."""
    inner = {"PATH": env.get("PATH", os.defpath), "HOME": spec.home, "LANG": env.get("LANG") or "C.UTF-8"}
    trust_store = {k: env[k] for k in CA_VARIABLES if env.get(k)}  # a company's TLS root: not a secret
    spec.read += [path for path in trust_store.values() if os.path.isabs(path)]
    return inner | trust_store


async def _start_proxy(proxy: SandboxProxy, folder: str) -> ProxyLink:
    if PROXY_OVER_SOCKET:
        await proxy.start(os.path.join(folder, "proxy.sock"))
        return ProxyLink(INSIDE_PROXY_PORT, socket_dir=folder, python=sys.executable)
    return ProxyLink(await proxy.start_tcp())


def build_spec(record: McpServerRecord, sandbox: McpSandbox, argv: list[str]) -> SandboxSpec:
    """The plain-path spec of a record's sandbox for the command line ``argv``."""
    user_home = home()
    read = runtime_paths(argv[0]) + script_folders(argv[1:], user_home)
    if PROXY_OVER_SOCKET and sandbox.net in ("loopback", "allow"):
        read += runtime_paths(sys.executable)
    read += [os.path.expanduser(p) for p in sandbox.allow_read]
    write = [p for p in [str(managed_tools_dir())] if os.path.isdir(p)] + caches_of(argv[0])
    write += [os.path.expanduser(p) for p in sandbox.allow_write]
    cwd = os.path.expanduser(record.config.cwd) if record.config.cwd else None
    if cwd and _safe(cwd, user_home):
        write.append(cwd)
    net: SpecNet = "any" if sandbox.net == "any" else "none"
    return SandboxSpec(
        argv=argv, home=user_home, cwd=cwd, read=_dedupe(read, user_home), write=_dedupe(write, user_home), net=net
    )


def caches_of(command: str) -> list[str]:
    """The package caches of the command's runtime (``uv``/``uvx``, ``npx``/``npm``), created if missing."""
    name = os.path.basename(command).lower().removesuffix(".exe").removesuffix(".cmd")
    folders = [os.path.expanduser(p) for p in CACHES.get("uvx" if name == "uv" else name, ())]
    for folder in folders:
        os.makedirs(folder, exist_ok=True)
    return folders


def script_folders(args: list[str], user_home: str) -> list[str]:
    """For each argument naming a file (a script), its folder (its own modules sit beside it) or, when that
    folder is the home folder or ``/``, the file alone."""
    found = [a for a in args if os.path.isabs(a) and os.path.isfile(a)]
    return [os.path.dirname(a) if _safe(os.path.dirname(a), user_home) else a for a in found]


def runtime_paths(command: str) -> list[str]:
    """Folders the command needs to run: its install prefix, a venv's base interpreter, this app's code."""
    out: list[str] = []
    for exe in dict.fromkeys([command, os.path.realpath(command)]):
        folder = os.path.dirname(exe)
        prefix = os.path.dirname(folder) if os.path.basename(folder) in ("bin", "Scripts") else folder
        out.append(prefix)
        out += _venv_base(Path(prefix, "pyvenv.cfg"))
    if os.path.realpath(command) == os.path.realpath(sys.executable):
        out += [sys.prefix, sys.base_prefix, str(Path(elftia_desktop.__file__).parent)]
    return out


def _venv_base(config: Path) -> list[str]:
    try:
        lines = config.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    for line in lines:
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            base = value.strip()
            return [os.path.dirname(base) if os.path.basename(base) in ("bin", "Scripts") else base]
    return []


def _safe(path: str, user_home: str) -> bool:
    """A path that can be shown without showing all of the home folder (not ``/``, not home or above)."""
    real = os.path.realpath(path)
    return real != os.sep and not (user_home + os.sep).startswith(real.rstrip(os.sep) + os.sep)


def _dedupe(paths: list[str], user_home: str) -> list[str]:
    return list(dict.fromkeys(p for p in paths if p and _safe(p, user_home)))


def denial_reader(on_stderr: Callable[[str], None], network_note: str | None = None) -> Callable[[str], None]:
    """``on_stderr`` that also writes a ``[sandbox] blocked:`` line for each denied path a line names
    (and, given ``network_note``, for each failed connection or name lookup)."""

    def read(line: str) -> None:
        """Pass the line on, then note the denial it shows, if any."""
        on_stderr(line)
        if network_note is not None and _NO_ROUTE.search(line):
            on_stderr(f"{BLOCKED_PREFIX}network ({network_note}: {line.strip()[:200]})")
            return
        match = _ERRNO.search(line)
        if match is None:
            return
        path, code = match["path"], match["code"].lower()
        missing = code in ("enoent", "errno 2]") or "no such" in code
        if missing and not os.path.lexists(path):
            return  # missing everywhere, not hidden by the sandbox
        on_stderr(f"{BLOCKED_PREFIX}file {path} ({'outside the sandbox' if missing else 'not allowed'})")

    return read
