"""Connecting to the host of this data folder, starting the daemon on demand.

:func:`connect` reads the data folder's claim (``location.py``), connects to the endpoint it names
and exchanges the hello; when no host runs and ``start`` is set, it starts ``elftia-mcp daemon
run`` in its own session (output to the host's log file in the data folder), says so once on
stderr, and waits for the claim of a host that answers. Two commands starting at once both spawn
one; the daemon that loses the lock exits and both attach to the winner. Standard library only.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from typing import Any

from elftia_desktop.host import wire
from elftia_desktop.host.location import HostLocation, attach_disabled, host_location
from elftia_desktop.platform import endpoint
from elftia_desktop.platform.lock import is_free
from elftia_desktop.platform.own_command import cli_argv
from elftia_desktop.platform.runtime import UnsafeRuntimeFolder, detached, runtime_folder

START_TIMEOUT = 60.0
"""Seconds a command waits for a daemon it started to listen (its imports take seconds on a busy machine)."""
IDLE_ENV = "ELFTIA_HOST_IDLE"
"""Seconds of no use after which the daemon stops its servers (and, at most as long, exits when empty)."""

EMPTY_EXIT = 60.0
"""Seconds a daemon with no client, no call and no running server waits before it exits (at most its idle time)."""

_announced: list[int] = []
"""The daemons this process started and told about (the note is said once per process)."""


class NoHost(Exception):
    """No host could be reached (and none could be started); the command runs its own pool."""


class Unreachable(NoHost):
    """This system or environment has no safe place for the host's endpoint: no host can run."""


def supported() -> bool:
    """Whether this environment allows attaching (``ELFTIA_NO_DAEMON`` unset)."""
    return not attach_disabled()


def daemon_command(stay: bool = False) -> list[str]:
    """The command line of ``elftia-mcp daemon run [--stay]`` of this installation (the window's too, when frozen)."""
    return cli_argv("daemon", "run", *(["--stay"] if stay else []))


def spawn_daemon(location: HostLocation, idle: float | None = None, *, stay: bool = False) -> subprocess.Popen[bytes]:
    """Start the daemon (``stay``: one that does not exit when empty) in its own session, detached from
    this command's terminal and pipes."""
    env = dict(os.environ)
    if idle is not None:
        env[IDLE_ENV] = str(idle)
    with open(location.log, "ab") as log:
        return subprocess.Popen(
            daemon_command(stay),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            env=env,
            close_fds=True,
            **detached(),
        )


def exit_after() -> float:
    """Seconds after its last client and server a daemon started now exits (``ELFTIA_HOST_IDLE`` shortens it)."""
    try:
        return min(EMPTY_EXIT, float(os.environ.get(IDLE_ENV) or EMPTY_EXIT))
    except ValueError:
        return EMPTY_EXIT


def _announce(child: subprocess.Popen[bytes], location: HostLocation) -> None:
    """Say once on stderr that this command started the background host, how long it stays, how to stop it."""
    if _announced:
        return
    _announced.append(child.pid)
    print(
        f"elftia: started the background pool host (pid {child.pid}) for {location.data_dir}; it keeps servers "
        f"warm for the apps and commands that use them and exits {exit_after():g} s after the last one stops "
        "(stop it now: elftia-mcp daemon stop)",
        file=sys.stderr,
        flush=True,
    )


def _open(location: HostLocation, hello: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """Connect to the endpoint of the host's claim and exchange the hello (``FileNotFoundError``: no claim)."""
    claim = location.read_claim()
    if claim is None:
        raise FileNotFoundError(location.claim)
    address = claim["endpoint"]
    sock = endpoint.connect(address)
    try:
        token = {"token": address["token"]} if "token" in address else {}
        sock.sendall(wire.encode({**hello, **token}))
        payload = wire.read_frame(sock)
        if payload is None:
            raise ConnectionRefusedError("the host closed the connection during the hello")
        return sock, wire.check_hello_reply(wire.decode(payload))
    except BaseException:
        sock.close()
        raise


def _wait_for(
    location: HostLocation, hello: dict[str, Any], child: subprocess.Popen[bytes], idle: float | None = None
) -> tuple[Any, dict[str, Any]]:
    """Wait for a host to listen; a daemon that lost the lock to a host that then went away
    (a window quitting) is started again."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        try:
            return _open(location, hello)
        except (FileNotFoundError, ConnectionError):
            pass  # no claim yet, or the claim of a host that is gone
        if child.poll() not in (None, 0):
            raise NoHost(f"the daemon exited with code {child.returncode} (see {location.log})")
        if child.returncode == 0 and is_free(location.lock):
            child = spawn_daemon(location, idle)
        time.sleep(0.02)
    raise NoHost(f"the daemon did not listen within {START_TIMEOUT:.0f} s (see {location.log})")


def connect(
    role: str, *, start: bool = True, announce: bool = True, idle: float | None = None, **fields: Any
) -> tuple[Any, dict[str, Any]]:
    """A connected socket to this data folder's host and the host's hello reply.

    ``announce``: say on stderr when this call started the daemon (``daemon start`` says it its own way).
    ``idle``: the idle time of a daemon this call starts (None: ``ELFTIA_HOST_IDLE`` or the default).

    ``NoHost`` when none runs (and ``start`` is false, or the daemon did not come up);
    ``wire.HostRefused`` when the host refused this hello (an unknown agent, another version).
    """
    try:
        location = host_location()
    except OSError as exc:
        raise Unreachable(f"no data folder for the host's claim: {exc}") from exc
    hello = wire.hello(role, pid=os.getpid(), **fields)
    try:
        return _open(location, hello)
    except (FileNotFoundError, ConnectionError) as exc:  # no claim, or the claim of a host that is gone
        if not start:
            raise NoHost("no host runs for this data folder") from exc
    except wire.HostRefused:
        raise
    except (OSError, wire.WireError) as exc:
        raise NoHost(f"the host could not be reached: {exc}") from exc
    return _start_and_wait(location, hello, announce, idle)


def _start_and_wait(
    location: HostLocation, hello: dict[str, Any], announce: bool, idle: float | None = None
) -> tuple[Any, dict[str, Any]]:
    """Start the daemon and attach to whichever host comes up (``Unreachable`` at once when it could not listen)."""
    try:
        runtime_folder()  # where the daemon's endpoint would go: a shared folder fails it before it starts
    except UnsafeRuntimeFolder as exc:
        raise Unreachable(str(exc)) from exc
    try:
        child = spawn_daemon(location, idle)
    except (OSError, UnsafeRuntimeFolder) as exc:
        raise NoHost(f"the daemon could not be started: {exc}") from exc
    try:
        connected = _wait_for(location, hello, child, idle)
    except (OSError, wire.WireError) as exc:
        if isinstance(exc, wire.HostRefused):
            raise
        raise NoHost(f"the host could not be reached: {exc}") from exc
    finally:
        with contextlib.suppress(OSError):
            child.poll()  # the loser of a start race exits at once: reap it
    if announce and connected[1].get("pid") == child.pid:
        _announce(child, location)
    return connected
