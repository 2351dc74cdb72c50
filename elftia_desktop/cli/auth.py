"""``elftia-mcp login NAME`` and ``elftia-mcp logout NAME``: OAuth sign-in of SSE/HTTP servers.

``login`` prints the authorization URL on its own line (stdout), opens the browser where there
is a display (not with ``--no-browser``) and waits for the callback; the tokens go to the
keyring. ``logout`` deletes them. Commands that connect (``test``, ``call``, ``tools``,
``discover``) sign in in place the same way when a server asks (see ``sign_in_flag``).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from elftia_desktop.cli.context import run_services
from elftia_desktop.cli.output import EXIT_OK, add_json_flag, print_json

if TYPE_CHECKING:  # the SDK is imported only when a command connects (a light CLI start)
    from elftia_desktop.application.services import Services
    from elftia_desktop.core.models import McpAuthStatus


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


def _run_auth(args: argparse.Namespace, login: bool) -> McpAuthStatus:
    from elftia_desktop.application import sign_in

    async def main(services: Services) -> sign_in.SignInOutcome:
        """Sign in or out on the services."""
        return await (sign_in.sign_in if login else sign_in.sign_out)(services.mcp, args.server)

    outcome = run_services(args, main, prompt_to_stdout=True)
    if args.json:
        print_json(outcome.status.to_json_dict())
    else:
        print(outcome.message)
    return outcome.status


def cmd_login(args: argparse.Namespace) -> int:
    """``login NAME``: sign in to an OAuth server now (prints the address; ``--no-browser`` for headless use)."""
    _run_auth(args, login=True)
    return EXIT_OK


def cmd_logout(args: argparse.Namespace) -> int:
    """``logout NAME``: sign out, deleting the server's tokens and registered client from the keyring."""
    _run_auth(args, login=False)
    return EXIT_OK
