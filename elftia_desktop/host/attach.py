"""Connecting to the host of this data folder, starting the daemon on demand.

:func:`connect` opens the socket and exchanges the hello; when nothing listens and ``start`` is
set, it starts ``elftia-mcp daemon run`` in its own session (output to the host's log file) and
waits for the socket. Two commands starting at once both spawn one; the daemon that loses the
lock exits and both attach to the winner. Standard library only.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from elftia_desktop.host import wire
from elftia_desktop.host.location import HostLocation, UnsafeRuntimeFolder, attach_disabled, host_location

START_TIMEOUT = 60.0
"""Seconds a command waits for a daemon it started to listen (its imports take seconds on a busy machine)."""
IDLE_ENV = "ELFTIA_HOST_IDLE"
"""Seconds of no use after which the daemon stops its servers, and exits when no client is attached."""


HandOver = Callable[[], tuple[list[int], dict[str, Any]]]
"""Called once the socket is connected, right before the hello: the descriptors to send with it, and more
hello fields (``shim.py`` hands the app's pipes over this way)."""


class NoHost(Exception):
    """No host could be reached (and none could be started); the command runs its own pool."""


class Unreachable(NoHost):
    """This system or environment has no safe place for the host's socket: no host can run."""


def supported() -> bool:
    """Whether this system and environment allow attaching (Unix sockets; ``ELFTIA_NO_DAEMON`` unset)."""
    return hasattr(socket, "AF_UNIX") and not attach_disabled()


def cli_command(*args: str) -> list[str]:
    """The command line of ``elftia-mcp ARGS`` of this installation (frozen or not)."""
    if getattr(sys, "frozen", False):
        return [sys.executable, *args]
    return [sys.executable, "-m", "elftia_desktop.cli", *args]


def daemon_command() -> list[str]:
    """The command line of ``elftia-mcp daemon run`` of this installation."""
    return cli_command("daemon", "run")


def spawn_daemon(location: HostLocation, idle: float | None = None) -> subprocess.Popen[bytes]:
    """Start the daemon in its own session, detached from this command's terminal and pipes."""
    env = dict(os.environ)
    if idle is not None:
        env[IDLE_ENV] = str(idle)
    with open(location.log, "ab") as log:
        return subprocess.Popen(
            daemon_command(),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            env=env,
            start_new_session=True,
            close_fds=True,
        )


def _send_hello(sock: socket.socket, hello: dict[str, Any], handover: HandOver | None) -> None:
    fds, extra = handover() if handover is not None else ([], {})
    data = wire.encode({**hello, **extra})
    if not fds:
        sock.sendall(data)
        return
    sent = socket.send_fds(sock, [data], fds)
    sock.sendall(data[sent:])


def _open(path: Path, hello: dict[str, Any], handover: HandOver | None = None) -> tuple[socket.socket, dict[str, Any]]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(path))
        _send_hello(sock, hello, handover)
        payload = wire.read_frame(sock)
        if payload is None:
            raise wire.WireError("the host closed the connection during the hello")
        return sock, wire.check_hello_reply(wire.decode(payload))
    except BaseException:
        sock.close()
        raise


def _lock_free(location: HostLocation) -> bool:
    """Whether no host holds the data folder's lock (the lock is let go at once)."""
    fd = os.open(location.lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


def _wait_for(
    location: HostLocation, hello: dict[str, Any], child: subprocess.Popen[bytes], handover: HandOver | None
) -> tuple[socket.socket, dict[str, Any]]:
    """Wait for a host to listen; a daemon that lost the lock to a host that then went away
    (a window quitting) is started again."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        try:
            return _open(location.socket, hello, handover)
        except (FileNotFoundError, ConnectionRefusedError):
            pass
        if child.poll() not in (None, 0):
            raise NoHost(f"the daemon exited with code {child.returncode} (see {location.log})")
        if child.returncode == 0 and _lock_free(location):
            child = spawn_daemon(location)
        time.sleep(0.02)
    raise NoHost(f"the daemon did not listen within {START_TIMEOUT:.0f} s (see {location.log})")


def connect(
    role: str, *, start: bool = True, handover: HandOver | None = None, **fields: Any
) -> tuple[socket.socket, dict[str, Any]]:
    """A connected socket to this data folder's host and the host's hello reply.

    ``handover``: what to send with the hello, asked only once a host listens (see :data:`HandOver`).

    ``NoHost`` when none runs (and ``start`` is false, or the daemon did not come up);
    ``wire.HostRefused`` when the host refused this hello (an unknown agent, another version).
    """
    try:
        location = host_location()
    except (OSError, UnsafeRuntimeFolder) as exc:
        raise Unreachable(f"no runtime folder for the host socket: {exc}") from exc
    hello = wire.hello(role, pid=os.getpid(), **fields)
    try:
        return _open(location.socket, hello, handover)
    except (FileNotFoundError, ConnectionRefusedError) as exc:
        if not start:
            raise NoHost("no host runs for this data folder") from exc
    except wire.HostRefused:
        raise
    except (OSError, wire.WireError) as exc:
        raise NoHost(f"the host could not be reached: {exc}") from exc
    child = spawn_daemon(location)
    try:
        return _wait_for(location, hello, child, handover)
    except (OSError, wire.WireError) as exc:
        if isinstance(exc, wire.HostRefused):
            raise
        raise NoHost(f"the host could not be reached: {exc}") from exc
    finally:
        with contextlib.suppress(OSError):
            child.poll()  # the loser of a start race exits at once: reap it
