"""``elftia-mcp serve --http`` run by hand while a pool host runs: the host listens, this process waits.

The ``http`` hello carries the asked ``[HOST:]PORT``; the host (started on demand) listens there
itself and serves the scope's gateway (``host/http_link.py``): an app's call goes app -> host ->
server, with no process between. This process prints where the gateway listens and waits on the
connection, owning the signals: SIGTERM or SIGINT closes the connection, the host closes the
listener and the connection, and this process exits once the port is free, printing one line. An
unknown agent or a port that cannot be had is the same error as without a host.

When the host goes away (killed, stopped, the window taking the pool over) the next host (started
on demand) is asked for the same port; when none can be had, this process serves the port itself
(``serve --no-daemon``'s HTTP gateway). Standard library only.
"""

from __future__ import annotations

import argparse
import contextlib
import socket
import sys
from collections.abc import Callable

from elftia_desktop.gateway.http_address import Address, cannot_listen, exposure_warning, listen, parse_address
from elftia_desktop.host import attach, wire
from elftia_desktop.host.shim_signals import Signals, Stopped, note

STOP_WAIT = 10.0
"""Seconds this process waits, stopping, for the host to close the listener (its sessions end in 2 s)."""
CANNOT_LISTEN = "CannotListen"
"""The ``kind`` of the host's refusal when the address cannot be had (``http_link.CANNOT_LISTEN``)."""
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
FALLBACK = -1
"""No host serves the port: this process does."""

Listener = tuple[socket.socket, Address]
ServeHere = Callable[[Listener | None, bool], int]
"""The in-process gateway: ``(listener or None to bind it, whether its address was printed)`` -> exit code."""


class HttpOwner:
    """The ``serve --http`` process while a host listens for it: the connection to that host."""

    def __init__(self, args: argparse.Namespace, address: Address) -> None:
        self.hello = {"agent": args.agent, "hub": args.hub, "timeout": args.timeout}
        self.address = address
        self.link: socket.socket | None = None
        self.announced = False

    def attach(self) -> None:
        """Reach a host (started on demand) and have it listen; the address it listens on is kept for the next one.

        ``attach.NoHost``, ``wire.HostRefused`` (an unknown agent, ``CANNOT_LISTEN``), ``wire.WireError``.
        """
        link, reply = attach.connect("http", host=self.address.host, port=self.address.port, **self.hello)
        self.link = link
        self.address = Address(str(reply["host"]), int(reply["port"]))
        if not self.announced:
            if (warning := exposure_warning(self.address)) is not None:
                print(f"warning: {warning}", file=sys.stderr, flush=True)
            print(f"Elftia gateway ({reply.get('label') or 'all active servers'}) at {reply['url']}", flush=True)
            self.announced = True

    def wait(self) -> None:
        """Block until the host goes away (a signal interrupts it)."""
        assert self.link is not None
        with contextlib.suppress(OSError, wire.WireError):
            while wire.read_frame(self.link) is not None:
                pass
        self.link.close()
        self.link = None

    def stop(self) -> None:
        """Close the connection and wait until the host has closed the listener: the port is free."""
        link, self.link = self.link, None
        if link is None:
            return
        with contextlib.suppress(OSError, wire.WireError):
            link.shutdown(socket.SHUT_WR)
            link.settimeout(STOP_WAIT)
            while wire.read_frame(link) is not None:
                pass
        link.close()


def _first_attach(owner: HttpOwner) -> int | None:
    """Attach for the first time: None when the host serves, ``FALLBACK``, or the exit code of an error."""
    try:
        owner.attach()
    except wire.HostRefused as exc:
        if exc.kind == "AgentNotFound":
            print(f"error: --agent: {exc}", file=sys.stderr, flush=True)
            return EXIT_BAD_INPUT
        if exc.kind == CANNOT_LISTEN:
            print(f"error: {exc}", file=sys.stderr, flush=True)
            return EXIT_FAILED
        note(f"the pool host refused this gateway ({exc}); serving with this process's own pool")
        return FALLBACK
    except (attach.NoHost, wire.WireError) as exc:
        note(f"{exc}; serving with this process's own pool")
        return FALLBACK
    return None


def _serve_attached(owner: HttpOwner) -> None:
    """Wait while hosts listen, asking a new host for the port when one goes away; return when none can be had."""
    while True:
        owner.wait()
        note("the pool host went away (the calls it ran failed); a new host listens on the same port")
        try:
            owner.attach()
        except (attach.NoHost, wire.WireError) as exc:
            note(f"{exc}; serving with this process's own pool")
            return


def _fallback(owner: HttpOwner, serve_here: ServeHere) -> int:
    """Serve the port in this process (bound here first when the host had listened: the same port)."""
    if not owner.announced:
        return serve_here(None, False)
    try:
        listener = listen(owner.address)
    except OSError as exc:
        print(f"error: {cannot_listen(owner.address, exc)}", file=sys.stderr, flush=True)
        return EXIT_FAILED
    return serve_here(listener, True)


def run_http_owner(args: argparse.Namespace, serve_here: ServeHere) -> int:
    """``serve --http`` attached to the pool host (``--timeout`` checked already); ``serve_here`` is the fallback."""
    try:
        address = parse_address(args.http)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr, flush=True)
        return EXIT_BAD_INPUT
    owner = HttpOwner(args, address)
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
        return _fallback(owner, serve_here)
    signals.note()
    return outcome if outcome is not None else EXIT_OK
