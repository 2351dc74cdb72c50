"""``elftia-mcp serve --http`` attached to the pool host: this process owns the port, the host serves it.

Once the host accepted the ``http`` hello (the agent exists; the daemon is started on demand),
this process binds ``[HOST:]PORT`` itself (a port in use is the same error as without a host),
passes the listening socket to the host with ``SCM_RIGHTS`` (``host/http_link.py``), prints where
the gateway listens and waits on the connection. The host serves the gateway's Streamable HTTP
app from its own loop with its pool: an app's call goes app -> host -> server, and each HTTP
session is one of the host's clients.

SIGTERM or SIGINT closes the connection: the host closes its copy of the socket and the sessions,
then this process closes its own (the port is free) and prints one line. When the host goes away
(killed, stopped, the window taking the pool over) the port stays bound here, so apps'
connections wait in its backlog, and the socket goes to a new host (started on demand) or, when
none can be had, is served in this process (``serve --no-daemon``'s HTTP gateway). Standard library only.
"""

from __future__ import annotations

import argparse
import contextlib
import socket
import sys
from collections.abc import Callable
from typing import Any

from elftia_desktop.gateway.http_address import Address, cannot_listen, exposure_warning, listen, parse_address
from elftia_desktop.host import attach, wire
from elftia_desktop.host.shim import Signals, Stopped, note

LISTENER_TAG = b"L"
"""The one byte that carries the listening socket (as ``SCM_RIGHTS``) to the host."""
STOP_WAIT = 10.0
"""Seconds this process waits, stopping, for the host to let the socket go (its sessions end in 2 s)."""
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
FALLBACK = -1
"""No host serves the socket: this process does."""

Listener = tuple[socket.socket, Address]
ServeHere = Callable[[Listener | None, bool], int]
"""The in-process gateway: ``(listener or None to bind it, whether its address was printed)`` -> exit code."""


class NotServed(Exception):
    """The host took the hello but did not serve the socket (it said why); this process serves it."""


class HttpOwner:
    """The ``serve --http`` process while a host serves its port: the socket, and the connection to that host."""

    def __init__(self, hello: dict[str, Any], address: Address) -> None:
        self.hello = hello
        self.address = address
        self.listener: socket.socket | None = None
        self.link: socket.socket | None = None
        self.announced = False

    def attach(self) -> None:
        """Reach a host (started on demand), bind on the first time, hand the socket over, wait until it serves.

        ``attach.NoHost``, ``wire.HostRefused`` (before anything was bound), ``OSError`` from binding,
        ``NotServed``.
        """
        link, reply = attach.connect("http", **self.hello)
        try:
            if self.listener is None:
                self.listener, self.address = listen(self.address)
                if (warning := exposure_warning(self.address)) is not None:
                    print(f"warning: {warning}", file=sys.stderr, flush=True)
            socket.send_fds(link, [LISTENER_TAG], [self.listener.fileno()])
            payload = wire.read_frame(link)
            answer = wire.decode(payload) if payload is not None else {"message": "the host closed the connection"}
            if answer.get("op") != "serving":
                raise NotServed(str(answer.get("message") or "the host did not serve the listener"))
        except BaseException:
            link.close()
            raise
        self.link = link
        if not self.announced:
            print(f"Elftia gateway ({reply.get('label') or 'all active servers'}) at {self.address.url}", flush=True)
            self.announced = True

    def wait(self) -> str | None:
        """Block until the host goes away (a signal interrupts it); why, when the host said it failed to serve."""
        assert self.link is not None
        failure = None
        with contextlib.suppress(OSError, wire.WireError):
            while (payload := wire.read_frame(self.link)) is not None:
                message = wire.decode(payload)
                if message.get("op") == "error":
                    failure = str(message.get("message"))
        self.link.close()
        self.link = None
        return failure

    def stop(self) -> None:
        """Close the connection, wait until the host has let the socket go, then close it here: the port is free."""
        link, self.link = self.link, None
        if link is not None:
            with contextlib.suppress(OSError, wire.WireError):
                link.shutdown(socket.SHUT_WR)
                link.settimeout(STOP_WAIT)
                while wire.read_frame(link) is not None:
                    pass
            link.close()
        if self.listener is not None:
            self.listener.close()
            self.listener = None


def _first_attach(owner: HttpOwner) -> int | None:
    """Attach for the first time: None when the host serves, ``FALLBACK``, or the exit code of an error."""
    try:
        owner.attach()
    except wire.HostRefused as exc:
        if exc.kind == "AgentNotFound":
            print(f"error: --agent: {exc}", file=sys.stderr, flush=True)
            return EXIT_BAD_INPUT
        note(f"the pool host refused this gateway ({exc}); serving with this process's own pool")
        return FALLBACK
    except (attach.NoHost, NotServed, wire.WireError) as exc:
        note(f"{exc}; serving with this process's own pool")
        return FALLBACK
    except OSError as exc:
        if owner.listener is None:  # binding failed
            print(f"error: {cannot_listen(owner.address, exc)}", file=sys.stderr, flush=True)
            return EXIT_FAILED
        note(f"the listener could not be handed to the pool host ({exc}); serving with this process's own pool")
        return FALLBACK
    return None


def _serve_attached(owner: HttpOwner) -> None:
    """Wait while hosts serve the socket, moving it to a new host when one goes away; return when none can be had."""
    while True:
        failure = owner.wait()
        if failure is not None:
            note(f"{failure}; serving with this process's own pool")
            return
        note("the pool host went away (the calls it ran failed); the listener moves to a new host")
        try:
            owner.attach()
        except (attach.NoHost, NotServed, wire.WireError, OSError) as exc:
            note(f"{exc}; serving with this process's own pool")
            return


def run_http_owner(args: argparse.Namespace, serve_here: ServeHere) -> int:
    """``serve --http`` attached to the pool host (``--timeout`` checked already); ``serve_here`` is the fallback."""
    try:
        address = parse_address(args.http)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr, flush=True)
        return EXIT_BAD_INPUT
    owner = HttpOwner({"agent": args.agent, "hub": args.hub, "timeout": args.timeout, "host": address.host}, address)
    signals = Signals()
    outcome: int | None = FALLBACK
    try:
        try:
            outcome = _first_attach(owner)
            if outcome is None:
                _serve_attached(owner)
                outcome = FALLBACK
        except Stopped:
            outcome = EXIT_OK
        finally:
            if outcome != FALLBACK:
                owner.stop()  # a second signal now is only noted
    except Stopped:  # the first signal came after all that
        owner.stop()
        outcome = EXIT_OK
    finally:
        signals.restore()
    if outcome == FALLBACK:
        return serve_here((owner.listener, owner.address) if owner.listener is not None else None, owner.announced)
    signals.note()
    return outcome if outcome is not None else EXIT_OK
