"""``elftia-mcp serve``: the gateway, and ``elftia-mcp gateway token|install|uninstall``.

``serve`` runs one MCP server over stdio (or Streamable HTTP with ``--http``) that serves an
agent's servers, or every active server, through this process's own pool. Nothing but the
protocol is written to stdout; logs go to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys

from elftia_desktop.cli.context import open_agents, open_catalog
from elftia_desktop.cli.output import EXIT_BAD_INPUT, EXIT_OK, fail
from elftia_desktop.connections.service import McpService
from elftia_desktop.core.errors import AgentNotFound
from elftia_desktop.gateway.core import Gateway
from elftia_desktop.gateway.scope import ScopeSource
from elftia_desktop.gateway.server import serve_stdio
from elftia_desktop.gateway.watch import watch

log = logging.getLogger(__name__)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``serve`` and ``gateway``."""
    p = sub.add_parser("serve", help="run the gateway: one MCP server with the tools of Elftia's servers")
    p.add_argument("--agent", metavar="NAME", help="serve this agent's servers and tools (default: all active)")
    p.add_argument("--hub", action="store_true", help="serve find_tools and call_tool instead of every tool")
    p.add_argument("--timeout", type=float, metavar="SECONDS", help="per-call timeout (default: each server's)")
    p.add_argument("--log-level", default="warning", choices=["debug", "info", "warning", "error"])
    p.set_defaults(handler=cmd_serve)


def scope_source(agent: str | None) -> ScopeSource:
    """The scope of ``--agent NAME`` (re-read when the agents file changes), or every active server.

    ``AgentNotFound`` (naming the agents there are) for an unknown name.
    """
    if agent is None:
        return ScopeSource()
    store = open_agents()
    agent_id = store.get(agent).id
    return ScopeSource(lambda: store.get(agent_id), store.path)


def cmd_serve(args: argparse.Namespace) -> int:
    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper(), format="elftia gateway: %(message)s")
    if args.timeout is not None and args.timeout <= 0:
        return fail(args, "--timeout: expected a number of seconds greater than 0", EXIT_BAD_INPUT)
    try:
        source = scope_source(args.agent)
    except AgentNotFound as exc:
        return fail(args, f"--agent: {exc}", EXIT_BAD_INPUT)
    catalog = open_catalog()

    async def main() -> None:
        service = McpService(catalog)
        gateway = Gateway(service, source.current, call_timeout=args.timeout)
        watcher = asyncio.get_running_loop().create_task(watch(gateway, source.refresh))
        try:
            await serve_stdio(gateway, hub_mode=args.hub)
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher

    asyncio.run(main())
    return EXIT_OK
