"""Agent commands: ``agents list|add|update|remove``, and the per-tool switches ``disable-tool``,
``enable-tool`` and ``auto-approve``.

Servers are given by name or id; tools by their id (``mcp__SERVER__TOOL``, as ``elftia-mcp
tools`` prints it), checked against the live server. An unknown server, tool or mode, or a
duplicate agent name, is exit 2 with a message naming the value and what would be valid.
"""

from __future__ import annotations

import argparse
from typing import Any

from elftia_desktop.application import agents as agent_actions
from elftia_desktop.application import tools
from elftia_desktop.cli.context import open_catalog, run_services
from elftia_desktop.cli.output import EXIT_OK, acted, add_json_flag, print_json, print_table, refused, warn
from elftia_desktop.core.agent_store import AgentStore
from elftia_desktop.core.catalog import ServerCatalog, ToolFlag
from elftia_desktop.core.errors import ConfigError, ElftiaError, ServerConnectionError
from elftia_desktop.core.models import Agent, McpServerRecord, MCPTool
from elftia_desktop.core.text_rules import quoted

MODES = ["disabled", "auto", "manual"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``agents`` and the per-tool switches."""
    agents = sub.add_parser("agents", help="the agents and which servers and tools each may use")
    asub = agents.add_subparsers(dest="agents_command", metavar="ACTION", required=True)
    p = asub.add_parser("list", help="list the agents")
    add_json_flag(p)
    p.set_defaults(handler=cmd_list)
    for action, help_text in (("add", "add an agent"), ("update", "change an agent")):
        p = asub.add_parser(action, help=help_text)
        p.add_argument("name", help="the agent's name" if action == "add" else "the agent (name or id)")
        if action == "update":
            p.add_argument("--rename", metavar="NEW", help="a new name")
            p.add_argument("--all-tools", action="store_true", help="drop the tool selection: every tool again")
            p.add_argument("--all-skills", action="store_true", help="drop the skill selection: every skill again")
        p.add_argument("--mode", choices=MODES, help="disabled: no MCP; auto: every active server; manual: --server")
        p.add_argument("--server", action="append", metavar="S", help="a server for manual mode (repeat; replaces)")
        p.add_argument(
            "--tool",
            action="append",
            metavar="TOOL_ID",
            help="limit its server to these tools (repeat; replaces; servers without --tool give every tool)",
        )
        p.add_argument(
            "--skill",
            action="append",
            nargs=2,
            metavar=("SERVER", "URI"),
            help="limit SERVER to these skills, by the URI of their SKILL.md (repeat; replaces; "
            "servers without --skill give every accepted skill)",
        )
        add_json_flag(p)
        p.set_defaults(handler=cmd_add if action == "add" else cmd_update)
    p = asub.add_parser("remove", help="delete an agent")
    p.add_argument("name", help="the agent (name or id)")
    add_json_flag(p)
    p.set_defaults(handler=cmd_remove)
    _register_switches(sub)


def _register_switches(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    for command, help_text in (
        ("disable-tool", "hide one tool of a server from every agent"),
        ("enable-tool", "offer a disabled tool again"),
        ("auto-approve", "run one tool without asking (on) or ask first (off)"),
    ):
        p = sub.add_parser(command, help=help_text)
        p.add_argument("server", help="name or id")
        p.add_argument("tool", help="the tool's name on the server")
        if command == "auto-approve":
            p.add_argument("state", choices=["on", "off"])
        add_json_flag(p)
        p.set_defaults(handler=cmd_switch, switch=command)


# -- agents -----------------------------------------------------------------------------------


def _print_agent(args: argparse.Namespace, agent: Agent, verb: str, catalog: ServerCatalog) -> None:
    if args.json:
        print_json({"success": True, "agent": agent.to_json_dict()})
    else:
        print(f"{verb} {agent.name} ({agent.mcp_mode.value}: {_servers_text(agent, _names(catalog))}).")


def _names(catalog: ServerCatalog) -> dict[str, str]:
    return {record.id: record.name for record in catalog.all()}


def _servers_text(agent: Agent, names: dict[str, str]) -> str:
    if agent.mcp_mode.value != "manual":
        return "every active server" if agent.mcp_mode.value == "auto" else "no MCP tools"
    picked = [names.get(s, f"{s} (removed)") for s in agent.selected_servers]
    return ", ".join(picked) or "no server selected"


def _tools_text(agent: Agent, names: dict[str, str]) -> str:
    if agent.selected_tools is None:
        return "all"
    return "; ".join(f"{names.get(s, s)}: {', '.join(t) or 'none'}" for s, t in agent.selected_tools.items())


def cmd_list(args: argparse.Namespace) -> int:
    """``agents list``."""
    catalog = open_catalog()
    agents, names = _agents(catalog).list(), _names(catalog)
    if args.json:
        print_json({"agents": [a.to_json_dict() for a in agents]})
    elif not agents:
        print("No agents.")
    else:
        rows = [[a.name, a.mcp_mode.value, _servers_text(a, names), _tools_text(a, names)] for a in agents]
        print_table(["NAME", "MODE", "SERVERS", "TOOLS"], rows)
    return EXIT_OK


def _selection(args: argparse.Namespace, catalog: ServerCatalog) -> dict[str, Any]:
    """The agent fields given on the command line, with servers and tools resolved to ids."""
    fields: dict[str, Any] = {}
    if args.mode is not None:
        fields["mcpMode"] = args.mode
    if args.server is not None:
        fields["selectedServers"] = [catalog.find(name).id for name in args.server]
    if args.tool is not None:
        fields["selectedTools"] = resolve_tool_ids(catalog, args.tool, args)
    if args.skill is not None:
        fields["selectedSkills"] = skill_selection(catalog, args.skill)
    return fields


def skill_selection(catalog: ServerCatalog, pairs: list[list[str]]) -> dict[str, list[str]]:
    """``{server id: [skill URI]}`` of ``--skill SERVER URI`` pairs; a URI must name a ``SKILL.md``."""
    selection: dict[str, list[str]] = {}
    for server, uri in pairs:
        if not uri.endswith("/SKILL.md") or "://" not in uri:
            raise ConfigError(f"--skill {server} {uri}: expected the URI of a skill's SKILL.md (skill://…/SKILL.md)")
        selection.setdefault(catalog.find(server).id, []).append(uri)
    return selection


def cmd_add(args: argparse.Namespace) -> int:
    """``agents add NAME``."""
    catalog = open_catalog()
    fields = _selection(args, catalog)
    if args.server and args.mode is None:
        fields["mcpMode"] = "manual"
    agents = _agents(catalog)
    agent = agents.add(Agent.model_validate({"name": args.name} | fields))
    _print_agent(args, agent, "Added", catalog)
    return EXIT_OK


def cmd_update(args: argparse.Namespace) -> int:
    """``agents update NAME``."""
    catalog = open_catalog()
    agents = _agents(catalog)
    current = agents.get(args.name)
    fields = _selection(args, catalog)
    if args.rename is not None:
        fields["name"] = args.rename
    if args.all_tools:
        fields["selectedTools"] = None
    if args.all_skills:
        fields["selectedSkills"] = None
    if not fields:
        raise ConfigError(
            "nothing to change: give --rename, --mode, --server, --tool, --skill, --all-tools or --all-skills"
        )
    agent = agents.update(current.id, fields)
    _print_agent(args, agent, "Updated", catalog)
    return EXIT_OK


def cmd_remove(args: argparse.Namespace) -> int:
    """``agents remove NAME``."""
    catalog = open_catalog()
    agent = _agents(catalog).remove(args.name)
    _print_agent(args, agent, "Removed", catalog)
    return EXIT_OK


def _agents(catalog: ServerCatalog) -> AgentStore:
    assert catalog.agents is not None, "open_catalog always opens the agents"
    return catalog.agents


# -- tools on live servers -------------------------------------------------------------------


def _live_tools(args: argparse.Namespace, records: list[McpServerRecord]) -> dict[str, list[MCPTool]]:
    """The enabled tools of these servers by id, fetched now on one service (signing in where a server asks)."""
    return run_services(args, lambda services: agent_actions.live_tools(services.mcp, records))


def resolve_tool_ids(catalog: ServerCatalog, tool_ids: list[str], args: argparse.Namespace) -> dict[str, list[str]]:
    """``{server id: [tool name]}`` for tool ids like ``mcp__files__read``, checked on the live servers."""
    owners = agent_actions.owners_of(catalog.all(), tool_ids)
    return agent_actions.tool_selection(owners, _live_tools(args, list(owners.values())))


def cmd_switch(args: argparse.Namespace) -> int:
    """``disable-tool``, ``enable-tool``, ``auto-approve``."""
    catalog = open_catalog()
    record = catalog.find(args.server)
    if args.switch == "enable-tool":
        if args.tool not in record.disabled_tools:
            disabled = ", ".join(record.disabled_tools) or "none"
            raise ConfigError(f"{record.name}: {quoted(args.tool)} is not disabled (disabled tools: {disabled})")
    else:
        _check_tool(args, record, args.tool)
    flag: ToolFlag = "autoApprove" if args.switch == "auto-approve" else "enabled"
    value = args.state == "on" if args.switch == "auto-approve" else args.switch == "enable-tool"
    result = acted(tools.set_tool_flag(catalog, record.id, args.tool, flag, value))
    if not result.success or result.server is None:
        return refused(args, result)
    if args.json:
        print_json({"success": True, "server": result.server.to_json_dict()})
    else:
        print(result.message)
    return EXIT_OK


def _check_tool(args: argparse.Namespace, record: McpServerRecord, tool: str) -> None:
    """Exit 2 when the live server has no such tool; a server that cannot be reached only warns."""
    if tool in record.disabled_tools:
        return
    try:
        names = [t.name for t in _live_tools(args, [record])[record.id]]
    except ServerConnectionError as exc:
        warn(f"could not check the tool name on {record.name}: {exc}")
        return
    except ElftiaError as exc:
        raise ConfigError(f"{record.name}: {exc}") from exc
    if tool not in names:
        raise ConfigError(f"{record.name} has no tool {quoted(tool)} (its tools: {', '.join(names) or 'none'})")
