"""``elftia-mcp login NAME`` and ``elftia-mcp logout NAME``: OAuth sign-in of SSE/HTTP servers.

``login`` prints the authorization URL on its own line (stdout), opens the browser where there
is a display (not with ``--no-browser``) and waits for the callback; the tokens go to the
keyring. ``logout`` deletes them. Commands that connect (``test``, ``call``, ``tools``,
``discover``) sign in in place the same way when a server asks (see ``sign_in_flag``).
"""

from __future__ import annotations

import argparse
import asyncio
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from elftia_desktop.cli.context import run_services
from elftia_desktop.cli.output import EXIT_OK, add_json_flag, print_json

if TYPE_CHECKING:  # the SDK is imported only when a command connects (a light CLI start)
    from elftia_desktop.application.services import Services
    from elftia_desktop.core.models import McpAuthStatus, McpServerRecord


def sign_in_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``--no-browser``: print the sign-in URL only (headless use)."""
    parser.add_argument(
        "--no-browser", action="store_true", help="on a sign-in, only print the address (do not open a browser)"
    )


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``login`` and ``logout``."""
    p = sub.add_parser("login", help="sign in to an OAuth server (tokens go to the keyring)")
    p.add_argument("server", help="name or id")
    sign_in_flag(p)
    add_json_flag(p)
    p.set_defaults(handler=cmd_login)

    p = sub.add_parser("logout", help="sign out of an OAuth server (delete its tokens)")
    p.add_argument("server", help="name or id")
    add_json_flag(p)
    p.set_defaults(handler=cmd_logout)


def describe(name: str, status: McpAuthStatus) -> str:
    """One line about a sign-in."""
    if not status.signed_in:
        return f"{name}: not signed in"
    who = f" as {status.subject}" if status.subject else ""
    scopes = f"; scopes: {' '.join(status.scopes)}" if status.scopes else ""
    until = ""
    if status.expires_at is not None:
        until = f"; token valid until {datetime.fromtimestamp(status.expires_at / 1000, UTC):%Y-%m-%d %H:%M} UTC"
    return f"{name}: signed in{who}{scopes}{until}"


def _run_auth(args: argparse.Namespace, login: bool) -> McpAuthStatus:
    async def main(services: Services) -> tuple[McpServerRecord, McpAuthStatus]:
        record = await asyncio.to_thread(services.catalog.find, args.server)
        service = services.mcp
        return record, await (service.sign_in(record.id) if login else service.sign_out(record.id))

    record, status = run_services(args, main, prompt_to_stdout=True)
    if args.json:
        print_json(status.to_json_dict())
    else:
        print(describe(record.name, status))
    return status


def cmd_login(args: argparse.Namespace) -> int:
    """``login NAME``: sign in to an OAuth server now (prints the address; ``--no-browser`` for headless use)."""
    _run_auth(args, login=True)
    return EXIT_OK


def cmd_logout(args: argparse.Namespace) -> int:
    """``logout NAME``: sign out, deleting the server's tokens and registered client from the keyring."""
    _run_auth(args, login=False)
    return EXIT_OK
