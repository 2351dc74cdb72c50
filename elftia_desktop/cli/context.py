"""The CLI's way into the assembly point (``application.services``), with notices printed as warnings."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from elftia_desktop.application.services import Services, Stores, open_services, open_stores
from elftia_desktop.cli.output import warn
from elftia_desktop.core.agent_store import AgentStore
from elftia_desktop.core.catalog import ServerCatalog

if TYPE_CHECKING:
    from elftia_desktop.connections.oauth_gate import SignInPrompt

T = TypeVar("T")


def _warn_all(notices: list[str]) -> None:
    for notice in notices:
        warn(notice)


def open_cli_stores() -> Stores:
    """The stores (a fresh install seeded); load problems go to stderr."""
    stores = open_stores(builtin_servers=False)
    _warn_all(stores.notices)
    return stores


def open_catalog() -> ServerCatalog:
    """The server catalog on the user's config file, with the agents; load problems go to stderr."""
    return open_cli_stores().catalog


def open_agents() -> AgentStore:
    """The agents (seeded with "Assistant" on a fresh install); load problems go to stderr."""
    return open_cli_stores().agents


def sign_in_prompt(args: argparse.Namespace, to_stdout: bool = False) -> SignInPrompt:
    """Sign in in place on a terminal: the URL on its own line, a browser unless ``--no-browser``."""
    from elftia_desktop.connections.oauth_prompt import console_prompt

    stream = sys.stdout if to_stdout and not getattr(args, "json", False) else sys.stderr
    return console_prompt(stream, browser=not getattr(args, "no_browser", False))


def run_services(
    args: argparse.Namespace, work: Callable[[Services], Awaitable[T]], *, prompt_to_stdout: bool = False
) -> T:
    """Run ``work`` on the services (saved settings, sign-in in place); the servers are stopped afterwards."""

    async def main() -> T:
        """Open the services, run the work, close them."""
        async with open_services(
            builtin_servers=False, sign_in_prompt=sign_in_prompt(args, prompt_to_stdout)
        ) as services:
            _warn_all(services.notices)
            return await work(services)

    return asyncio.run(main())
