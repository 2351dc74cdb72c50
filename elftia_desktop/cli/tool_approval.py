"""``elftia-mcp tools NAME --approve TOOL / --ask TOOL``: which tools run without asking first.

The same state as Discover's "Auto-approve" switches (see :mod:`elftia_desktop.core.approvals`):
``tools`` shows it for each tool (``auto`` or ``asks``), the flags set it. A tool name is checked
against the server's live tools first; nothing is changed when one is unknown.
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable
from typing import TYPE_CHECKING

from elftia_desktop.cli.output import EXIT_BAD_INPUT, EXIT_OK, acted, fail, print_json, refused
from elftia_desktop.core.approvals import auto_approved
from elftia_desktop.core.errors import ElftiaError
from elftia_desktop.core.models import MCPTool
from elftia_desktop.core.text_rules import quoted

if TYPE_CHECKING:
    from elftia_desktop.application.services import Services

Listed = tuple[list[MCPTool], dict[str, str]]


def add_approval_flags(p: argparse.ArgumentParser) -> None:
    """``[NAME] [--approve TOOL]... [--ask TOOL]...``."""
    p.add_argument("name", nargs="?", metavar="NAME", help="only this server (name or id), as --server")
    p.add_argument(
        "--approve", action="append", default=[], metavar="TOOL", help="let NAME's TOOL run without asking (repeatable)"
    )
    p.add_argument(
        "--ask", action="append", default=[], metavar="TOOL", help="make NAME's TOOL ask before each call (repeatable)"
    )


def check_flags(args: argparse.Namespace) -> int | None:
    """Fold ``NAME`` into ``--server``; an exit code when the flags do not fit together."""
    if args.name is not None:
        if args.server is not None and args.server != args.name:
            return fail(
                args,
                f"name the server once (NAME {quoted(args.name)} and --server {quoted(args.server)})",
                EXIT_BAD_INPUT,
            )
        args.server = args.name
    both = sorted(set(args.approve) & set(args.ask))
    if both:
        return fail(args, f"--approve and --ask both name {', '.join(both)}", EXIT_BAD_INPUT)
    if (args.approve or args.ask) and args.server is None:
        return fail(args, "--approve/--ask: name the server, e.g. elftia-mcp tools NAME --approve TOOL", EXIT_BAD_INPUT)
    return None


async def with_states(
    services: Services, listing: Awaitable[Listed]
) -> tuple[list[MCPTool], dict[str, str], dict[str, str]]:
    """The listed tools, the errors, and whether each tool (by id) runs without asking: ``auto`` or ``asks``."""
    tools, errors = await listing
    records = {record.id: record for record in await services.mcp.current_records()}
    states: dict[str, str] = {}
    for server_id in dict.fromkeys(t.server_id for t in tools):
        try:
            hints = {d.name: d.annotations.read_only_hint if d.annotations else None
                     for d in await services.mcp.list_tool_defs(server_id)}  # fmt: skip
        except ElftiaError:
            hints = {}
        record = records.get(server_id)
        if record is None:
            continue
        for tool in (t for t in tools if t.server_id == server_id):
            states[tool.id] = "auto" if auto_approved(record, tool.name, hints.get(tool.name)) else "asks"
    return tools, errors, states


def switch(args: argparse.Namespace, tools: list[MCPTool]) -> int:
    """Set ``--approve`` / ``--ask`` for the server's tools (all names checked first)."""
    from elftia_desktop.application.tools import set_tool_flag
    from elftia_desktop.cli.context import open_catalog

    catalog = open_catalog()
    record = catalog.find(args.server)
    known = [t.name for t in tools if t.server_id == record.id]
    unknown = [name for name in [*args.approve, *args.ask] if name not in known]
    if unknown:
        listed = ", ".join(known) or "none"
        return fail(args, f"{record.name} has no tool {quoted(unknown[0])} (its tools: {listed})", EXIT_BAD_INPUT)
    changes = [(name, True) for name in args.approve] + [(name, False) for name in args.ask]
    server = record
    for name, value in changes:
        result = acted(set_tool_flag(catalog, record.id, name, "autoApprove", value))
        if not result.success or result.server is None:
            return refused(args, result)
        server = result.server
        if not args.json:
            print(result.message)
    if args.json:
        print_json({"success": True, "server": server.to_json_dict()})
    return EXIT_OK
