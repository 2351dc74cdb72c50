"""``elftia-mcp review SERVER [--accept TOOL…|--all]``: the tools a trusted server changed since it was trusted.

The server is listed first (so the comparison is fresh; a server that cannot start is reviewed
from what its last listing recorded). Each held-back tool is shown as a diff of its definition
with the lint's findings; ``--accept`` pins the named tools as they are now, ``--all`` every one.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from elftia_desktop.cli.auth import sign_in_flag
from elftia_desktop.cli.context import open_catalog, run_services
from elftia_desktop.cli.output import EXIT_BAD_INPUT, EXIT_OK, add_json_flag, fail, print_json, suggest, warn
from elftia_desktop.core.errors import ElftiaError
from elftia_desktop.core.text_rules import visible
from elftia_desktop.core.tool_pins import definition_diff

if TYPE_CHECKING:
    from elftia_desktop.application.services import Services
    from elftia_desktop.connections.tool_guard import ToolGuard, ToolReview


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``review``."""
    p = sub.add_parser("review", help="review a server's changed tools (held back from agents until accepted)")
    p.add_argument("server", help="name or id")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--accept", nargs="+", metavar="TOOL", help="pin these tools as they are now")
    which.add_argument("--all", action="store_true", help="pin every changed tool as it is now")
    add_json_flag(p)
    sign_in_flag(p)
    p.set_defaults(handler=cmd_review)


def cmd_review(args: argparse.Namespace) -> int:
    """``review SERVER``: show the held-back tools, or accept them."""
    catalog = open_catalog()
    record = catalog.find(args.server)
    guard, problem = run_services(args, lambda services: _list_now(services, record.id))
    accepted: list[str] = []
    if args.accept or args.all:
        try:
            accepted = guard.accept(record.id, None if args.all else args.accept)
        except ElftiaError as exc:
            return fail(args, f"--accept: {exc}", EXIT_BAD_INPUT)
    review = guard.review(record.id, {r.id: r.name for r in catalog.all()})
    if problem:
        warn(f"{record.name} could not be listed now ({problem}); showing what its last listing said")
    if args.json:
        print_json({"server": record.name, "accepted": accepted, **review.to_json_dict()})
        return EXIT_OK
    if args.accept or args.all:
        print(f"Accepted: {', '.join(accepted)}." if accepted else "Nothing was held back; nothing to accept.")
        return EXIT_OK
    _print_review(record.name, review)
    return EXIT_OK


async def _list_now(services: Services, server_id: str) -> tuple[ToolGuard, str | None]:
    """List the server's tools once (which compares them with the pins); why it failed, if it did."""
    try:
        await services.mcp.tools.of_server(server_id)
    except ElftiaError as exc:
        return services.mcp.tool_guard, str(exc)
    return services.mcp.tool_guard, None


def _print_review(server: str, review: ToolReview) -> None:
    if not review.pinned:
        print(f"{visible(server)} has not been listed since it was trusted; nothing is pinned yet.")
        return
    if not review.items and not review.reordered:
        print(f"Nothing to review: every tool of {visible(server)} is as it was when trusted.")
    for item in review.items:
        print(f"{item.status:<12} {visible(item.name)}")
        for line in definition_diff(item.before, item.after):
            print(f"    {line}")
        for finding in item.findings:
            print(f"    lint {finding.rule}: {visible(finding.detail)}")
    for name in review.reordered:
        print(f"{'reordered':<12} {visible(name)}: its description lists the same items in another order "
              "(nothing new: served)")  # fmt: skip
    if review.items:
        print(f"Held back from agents and the gateway until accepted: {suggest('review', server, '--all')}")
    for finding in review.pinned_findings:
        print(f"lint {finding.rule} in pinned tool {visible(finding.tool)}: {visible(finding.detail)}")
