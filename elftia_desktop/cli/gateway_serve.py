"""``elftia-mcp serve``: run the gateway (stdio, or Streamable HTTP with ``--http``) until its client leaves."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import socket
import sys
from collections.abc import Awaitable, Callable
from functools import partial

from elftia_desktop.application.services import open_services
from elftia_desktop.cli.context import open_agents
from elftia_desktop.cli.gateway_signals import StdinRelay, StopSignals
from elftia_desktop.cli.output import EXIT_BAD_INPUT, EXIT_OK, fail, warn
from elftia_desktop.core.errors import AgentNotFound
from elftia_desktop.core.paths import data_dir
from elftia_desktop.core.text_rules import VisibleFormatter
from elftia_desktop.gateway.core import Gateway
from elftia_desktop.gateway.http import http_app, serve_http
from elftia_desktop.gateway.http_address import Address, cannot_listen, exposure_warning, listen, parse_address
from elftia_desktop.gateway.scope import ScopeSource
from elftia_desktop.gateway.token import StoredToken, gateway_token
from elftia_desktop.gateway.watch import watch
from elftia_desktop.host.links import Callers, HostedGateway
from elftia_desktop.host.stdio_link import serve_stdio


def scope_source(agent: str | None) -> ScopeSource:
    """The scope of ``--agent NAME`` (re-read when the agents file changes), or every active server.

    ``AgentNotFound`` (naming the agents there are) for an unknown name.
    """
    if agent is None:
        return ScopeSource()
    store = open_agents()
    agent_id = store.get(agent).id
    return ScopeSource(lambda: store.get(agent_id), store.path)


Listener = tuple[socket.socket, Address]
"""A listening socket of ``--http`` and where it listens."""


def _listen(address: Address) -> Listener:
    """A listening socket on ``address`` and where it really listens (port 0: the free port picked)."""
    sock, address = listen(address)
    if (warning := exposure_warning(address)) is not None:
        warn(warning)
    return sock, address


async def _serve(
    args: argparse.Namespace,
    source: ScopeSource,
    http: Listener | None,
    relay: StdinRelay | None,
    announced: bool = False,
) -> StopSignals:
    """Run the gateway on the services (saved timeouts and log size) until its client leaves (stdio) or
    a signal stops it; always clean up. The signal handling, for the closing note."""
    stop = asyncio.Event()
    signals = StopSignals(asyncio.get_running_loop(), stop, relay)
    try:
        async with open_services(builtin_servers=False) as services:
            for notice in services.notices:
                warn(notice)
            if http is None:  # stdio: the host's per-client path, in this process (see host/stdio_link.py)
                hosted = HostedGateway(services.mcp, source.current, Callers(), args.timeout)
                gateway: Gateway = hosted
                serve: Callable[[], Awaitable[None]] = partial(serve_stdio, hosted, hub=args.hub)
            else:  # HTTP: the servers stop whenever the last client leaves
                gateway = Gateway(services.mcp, source.current, call_timeout=args.timeout, release_when_idle=True)
                serve = partial(_serve_http, args, gateway, source, http, stop, announced)
            await _run_gateway(gateway, source, serve)
    finally:
        signals.remove()
    return signals


async def _serve_http(
    args: argparse.Namespace,
    gateway: Gateway,
    source: ScopeSource,
    http: Listener,
    stop: asyncio.Event,
    announced: bool,
) -> None:
    """Serve ``gateway`` over HTTP on ``http`` until ``stop`` (saying where, unless ``announced`` already)."""
    sock, address = http
    vault = gateway.service.catalog.vault
    await asyncio.to_thread(gateway_token, vault)  # made on first use
    if not announced:
        print(f"Elftia gateway ({source.current().label}) at {address.url}", flush=True)
    app = http_app(gateway, StoredToken(vault, data_dir()), address, hub_mode=args.hub)
    await serve_http(app, sock, stop=stop)


async def _run_gateway(gateway: Gateway, source: ScopeSource, serve: Callable[[], Awaitable[None]]) -> None:
    """Run ``serve`` while watching the config and the scope; then stop every server the gateway started."""
    watcher = asyncio.get_running_loop().create_task(watch(gateway, source.refresh))
    try:
        await serve()
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
        await gateway.close()


def serve_command(args: argparse.Namespace, listener: Listener | None = None, *, announced: bool = False) -> int:
    """Run ``serve`` with the parsed arguments in this process; returns the exit code.

    ``listener``: the ``--http`` socket, bound already (an attached ``serve --http`` whose pool host
    could not be had); ``announced``: its address was printed already.
    """
    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper())
    for handler in logging.getLogger().handlers:  # names and messages from servers are shown escaped
        handler.setFormatter(VisibleFormatter("elftia gateway: %(message)s"))
    if args.timeout is not None and args.timeout <= 0:
        return fail(args, "--timeout: expected a number of seconds greater than 0", EXIT_BAD_INPUT)
    try:
        source = scope_source(args.agent)
        address = parse_address(args.http) if args.http is not None else None
    except AgentNotFound as exc:
        return fail(args, f"--agent: {exc}", EXIT_BAD_INPUT)
    except ValueError as exc:
        return fail(args, str(exc), EXIT_BAD_INPUT)
    if listener is None and address is not None:
        try:
            listener = _listen(address)
        except OSError as exc:
            return fail(args, cannot_listen(address, exc))
    relay = StdinRelay() if listener is None else None  # a signal ends stdin as the app's leaving does
    with relay.installed() if relay is not None else contextlib.nullcontext():
        signals = asyncio.run(_serve(args, source, listener, relay, announced))
    signals.note()
    return EXIT_OK
