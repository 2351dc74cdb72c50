"""``elftia-mcp tools`` and ``elftia-mcp convert``: exactly what each provider API would receive.

``tools`` connects to the configured servers through ``McpService`` (all active ones, one with
``--server``, or an agent's selection with ``--agent``); ``convert`` works offline on a saved
``tools/list`` result (``{"tools": [...]}`` or a bare list). ``--lint`` lists, per tool and
provider, what was changed or dropped and why.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import TYPE_CHECKING, Any

from elftia_desktop.cli.auth import sign_in_flag
from elftia_desktop.cli.context import run_services
from elftia_desktop.cli.output import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_OK,
    add_json_flag,
    print_json,
    print_table,
    warn,
    warn_held,
)
from elftia_desktop.cli.tool_approval import add_approval_flags, check_flags, switch, with_states
from elftia_desktop.core.errors import ElftiaError, JsonInputError
from elftia_desktop.core.json_input import parse_json_text, read_input_text
from elftia_desktop.core.models import McpServerRecord, MCPTool
from elftia_desktop.tools.convert import Conversion, ToolInput
from elftia_desktop.tools.loader import FORMATS, convert_tools, select_tools

if TYPE_CHECKING:
    from elftia_desktop.application.services import Services
    from elftia_desktop.connections.service import McpService


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``tools`` and ``convert``."""
    p = sub.add_parser("tools", help="list tools, or print them as a provider API would receive them")
    add_approval_flags(p)
    p.add_argument("--server", help="only this server (name or id)")
    p.add_argument("--agent", help="the tools of this agent (its MCP mode, servers and tool selection)")
    _format_flags(p, default="table")
    sign_in_flag(p)
    p.set_defaults(handler=cmd_tools)

    p = sub.add_parser("convert", help="convert a saved tools/list result (offline)")
    p.add_argument("file", help='a JSON file: {"tools": [...]} or a bare list; - for stdin')
    _format_flags(p, default=None)
    p.set_defaults(handler=cmd_convert)


def _format_flags(p: argparse.ArgumentParser, default: str | None) -> None:
    choices = [*FORMATS] if default is None else ["table", *FORMATS]
    p.add_argument("--format", choices=choices, default=default, required=default is None)
    p.add_argument("--strict", action="store_true", help="OpenAI strict mode")
    p.add_argument("--lint", action="store_true", help="list what was changed or dropped, and why")
    add_json_flag(p)


def load_tool_list(text: str, source: str) -> list[dict[str, Any]]:
    """The tools of a saved ``tools/list`` result; ``JsonInputError`` with line and column if malformed."""
    data = parse_json_text(text, source)
    tools = data.get("tools") if isinstance(data, dict) else data
    if not isinstance(tools, list):
        raise JsonInputError(f'{source}: expected {{"tools": [...]}} or a list of tools')
    for index, tool in enumerate(tools):
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            raise JsonInputError(f"{source}: tools[{index}] is not a tool object with a string 'name'")
    return tools


def cmd_convert(args: argparse.Namespace) -> int:
    """Convert a saved tool list."""
    text, source = read_input_text(args.file)
    tools: list[ToolInput] = list(load_tool_list(text, source))
    return _print(args, convert_tools(tools, args.format, strict=args.strict), tools)


def cmd_tools(args: argparse.Namespace) -> int:
    """List tools from live servers (whether each asks before it runs), or set that (``--approve``/``--ask``)."""
    code = check_flags(args)
    if code is not None:
        return code
    tools, errors, states, held = run_services(args, lambda services: _listed(services, args.server, args.agent))
    for server, reason in errors.items():
        warn(f"{server}: {reason}")
    for server, names in held.items():
        warn_held(server, names)
    if args.approve or args.ask:
        return switch(args, tools)
    if args.format == "table":
        return _print_table(args, tools, errors, states)
    code = _print(args, convert_tools(tools, args.format, strict=args.strict), list(tools))
    return EXIT_FAILED if errors and not tools else code


async def _listed(
    services: Services, server: str | None, agent_name: str | None
) -> tuple[list[MCPTool], dict[str, str], dict[str, str], dict[str, list[str]]]:
    """The tools, why servers are missing, whether each tool asks, and by server name the tools held back."""
    tools, errors, states = await with_states(services, _live_tools(services, server, agent_name))
    names = {record.id: record.name for record in await services.mcp.current_records()}
    guard = services.mcp.tool_guard
    held = {names.get(sid, sid): sorted(tool_names) for sid, tool_names in guard.held.items() if tool_names}
    return tools, errors, states, held


async def _live_tools(
    services: Services, server: str | None, agent_name: str | None
) -> tuple[list[MCPTool], dict[str, str]]:
    from elftia_desktop.tools.loader import fetch_mcp_tools

    catalog, service = services.catalog, services.mcp
    agent = await asyncio.to_thread(services.agents.get, agent_name) if agent_name is not None else None
    if server is not None:
        sid = (await asyncio.to_thread(catalog.find, server)).id
        tools = await _signed_in_tools(service, sid)
        return (select_tools(agent, tools) if agent is not None else tools), {}
    if agent is not None:
        listing = await fetch_mcp_tools(service, agent)
    else:
        listing = await service.list_all_active_server_tools()
    for sid in [sid for sid in listing.errors if service.connection_state(sid).value == "auth_required"]:
        try:  # sign in to each server that asks, one after the other
            listing.tools.extend(await _signed_in_tools(service, sid))
            del listing.errors[sid], listing.reasons[sid]
        except ElftiaError as exc:
            listing.add_failure(sid, exc)
    return listing.tools, _named_errors(await service.current_records(), listing.reasons)


async def _signed_in_tools(service: McpService, server_id: str) -> list[MCPTool]:
    tools: list[MCPTool] = await service.signed_in(server_id, lambda: service.list_server_tools(server_id))
    return tools


def _named_errors(records: list[McpServerRecord], errors: dict[str, str]) -> dict[str, str]:
    """Why each failed server's tools are missing, by its name (its id when no longer configured)."""
    names = {record.id: record.name for record in records}
    return {names.get(server_id, server_id): reason for server_id, reason in errors.items()}


def _print_table(args: argparse.Namespace, tools: list[MCPTool], errors: dict[str, str], states: dict[str, str]) -> int:
    if args.json:
        listed = [t.to_json_dict() | {"approval": states.get(t.id)} for t in tools]
        print_json({"tools": listed, "errors": errors})
    elif not tools:
        print("No tools.")
    else:
        rows = [
            [t.server_name, t.name, t.id, states.get(t.id, "-"), (t.description or "").split("\n")[0][:60]]
            for t in tools
        ]
        print_table(["SERVER", "TOOL", "ID", "APPROVAL", "DESCRIPTION"], rows)
    return EXIT_FAILED if errors and not tools else EXIT_OK


def _print(args: argparse.Namespace, conversion: Conversion, tools: list[ToolInput]) -> int:
    for note in [] if args.lint and not args.json else conversion.warnings:  # the lint's table lists them
        warn(str(note))
    if args.json:
        print_json(conversion.to_json())
    elif args.lint:
        _print_lint(conversion, len(tools))
    else:
        print_json(conversion.payload)
    return EXIT_OK if tools or not conversion.skipped else EXIT_BAD_INPUT


_LOSSES = ("dropped", "cut", "fallback", "skipped", "warning")
"""Note actions that mean something of the tool did not reach the API as the server declared it."""


def _print_lint(conversion: Conversion, count: int) -> None:
    if not conversion.notes:
        print(f"{conversion.format}: {count} tools, sent unchanged.")
        return
    losses = sum(n.action in _LOSSES for n in conversion.notes)
    mapped = len(conversion.name_map.arguments_json())
    tools = f"{mapped} tool{'s' * (mapped != 1)}"
    print(f"{conversion.format}: {count} tools, {len(conversion.notes)} changes, {losses} of them lose something "
          f"(dropped, cut, fallback, skipped, warning); arguments mapped back for {tools}")  # fmt: skip
    rows = [[n.tool or "*", n.path or "-", n.action, n.detail] for n in conversion.notes]
    print_table(["TOOL", "WHERE", "ACTION", "WHY"], rows)
