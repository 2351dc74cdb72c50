"""Server list commands: ``list``, ``add``, ``add-json``, ``update``, ``remove``, ``enable``,
``disable`` and ``trust``, on the config store (no connection is made)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from pydantic import ValidationError

from elftia_desktop.application import messages, servers
from elftia_desktop.cli.context import open_catalog
from elftia_desktop.cli.output import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_OK,
    acted,
    add_json_flag,
    fail,
    key_values,
    print_json,
    print_table,
    refused,
    shorten_for_terminal,
    suggest,
    warn,
    warn_held,
)
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import describe_validation_error
from elftia_desktop.core.json_input import read_input_text
from elftia_desktop.core.models import McpActionResult, McpServerInput, McpServerRecord
from elftia_desktop.core.server_json import parse_servers_json
from elftia_desktop.core.text_rules import visible
from elftia_desktop.core.trust import describe_launch, launch_changes


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the server list commands."""
    p = sub.add_parser("list", help="list the configured servers")
    add_json_flag(p)
    p.set_defaults(handler=cmd_list)
    _register_add(sub)
    p = sub.add_parser("add-json", help="add servers from JSON (a file, or - for stdin)")
    p.add_argument("file", nargs="?", default="-")
    p.add_argument("--on-conflict", choices=["fail", "rename", "skip", "replace"], default="fail")
    p.add_argument("--trust", action="store_true", help="mark them trusted (you checked what they run)")
    add_json_flag(p)
    p.set_defaults(handler=cmd_add_json)
    _register_update(sub)
    p = sub.add_parser("remove", help="remove a server and its secrets")
    p.add_argument("server", help="name or id")
    add_json_flag(p)
    p.set_defaults(handler=cmd_remove)
    for verb, active in (("enable", True), ("disable", False)):
        p = sub.add_parser(verb, help=f"{verb} a server")
        p.add_argument("server", help="name or id")
        add_json_flag(p)
        p.set_defaults(handler=cmd_set_active, active=active)
    p = sub.add_parser("trust", help="show what a server runs, then mark it trusted")
    p.add_argument("server", help="name or id")
    p.add_argument("--yes", action="store_true", help="do not ask")
    add_json_flag(p)
    p.set_defaults(handler=cmd_trust)


def _register_add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "add",
        help="add a server",
        usage="%(prog)s NAME [options] [-- COMMAND [ARGS ...]]",
        epilog="Example: elftia-mcp add files -- npx -y @modelcontextprotocol/server-filesystem ~/Documents",
    )
    p.add_argument("name")
    p.add_argument(
        "--type",
        choices=["stdio", "sse", "http"],
        default=None,
        help="transport (default: stdio, or http when --url is given)",
    )
    p.add_argument("--command", help="stdio: the program to run")
    p.add_argument("--arg", dest="args", action="append", default=[], help="stdio: one argument (repeat)")
    p.add_argument("--env", action="append", default=[], metavar="KEY=VALUE", help="stdio: environment (repeat)")
    p.add_argument("--cwd", help="stdio: working folder")
    p.add_argument("--url", help="sse/http: the endpoint URL")
    p.add_argument("--header", action="append", default=[], metavar="NAME=VALUE", help="sse/http: header (repeat)")
    p.add_argument("--secret", action="append", default=[], metavar="NAME", help="treat this env/header as secret")
    p.add_argument("--timeout", type=float, help="tool-call timeout in seconds")
    p.add_argument("--scope", choices=["user", "local"], default="user")
    p.add_argument("--project", dest="project_path", help="project folder (scope local)")
    p.add_argument("--inactive", action="store_true", help="add it disabled")
    p.add_argument("--trust", action="store_true", help="mark it trusted (you checked what it runs)")
    p.set_defaults(cmdline=[])
    add_json_flag(p)
    p.set_defaults(handler=cmd_add)


def _register_update(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("update", help="change fields of a server")
    p.add_argument("server", help="name or id")
    p.add_argument("--name", dest="new_name")
    p.add_argument("--command")
    p.add_argument("--arg", dest="args", action="append", default=None, help="replaces all arguments (repeat)")
    p.add_argument("--env", action="append", default=None, metavar="KEY=VALUE", help="replaces the environment")
    p.add_argument("--cwd")
    p.add_argument("--url")
    p.add_argument("--header", action="append", default=None, metavar="NAME=VALUE", help="replaces the headers")
    p.add_argument("--secret", action="append", default=[], metavar="NAME")
    p.add_argument("--timeout", type=float)
    add_json_flag(p)
    p.set_defaults(handler=cmd_update)


def record_row(record: McpServerRecord) -> list[Any]:
    """The table row of a record."""
    target = (
        record.config.url
        if record.type.value != "stdio"
        else " ".join([record.config.command or "", *record.config.args])
    )
    return [
        visible(record.name),
        record.type.value,
        record.scope.value,
        "yes" if record.is_active else "no",
        "yes" if record.is_trusted else "no",
        shorten_for_terminal(visible(target or "")),
    ]


def cmd_list(args: argparse.Namespace) -> int:
    """``list``: every server (``--json`` for scripts)."""
    catalog = open_catalog()
    records = catalog.all()
    if args.json:
        print_json([r.to_json_dict() for r in records])
    elif not records:
        print("No servers yet. Add one with 'elftia-mcp add' or 'elftia-mcp add-json'.")
    else:
        print_table(["NAME", "TYPE", "SCOPE", "ACTIVE", "TRUSTED", "RUNS / URL"], [record_row(r) for r in records])
    _warn_held(catalog, records)
    return EXIT_OK


def _warn_held(catalog: ServerCatalog, records: list[McpServerRecord]) -> None:
    """Name the tools each server's last listing held back for review (from the pins file; nothing starts)."""
    from elftia_desktop.core.tool_pin_store import PINS_FILE_NAME, PinStore

    pins = PinStore(catalog.store.path.with_name(PINS_FILE_NAME)).all()
    for record in records:
        entry = pins.get(record.id)
        pending = entry.get("pending") if isinstance(entry, dict) else None
        if pending:
            warn_held(record.name, sorted(pending))


def _pairs(values: list[str] | None, flag: str) -> dict[str, str] | None:
    return None if values is None else key_values(values, flag)


def cmd_add(args: argparse.Namespace) -> int:
    """``add NAME -- COMMAND ARGS…`` or ``add NAME --url URL``: add one server."""
    if args.cmdline:
        args.command, args.args = args.cmdline[0], args.cmdline[1:] + args.args
    transport = args.type or ("http" if args.url and not args.command else "stdio")
    config: dict[str, Any] = {
        "command": args.command,
        "args": args.args,
        "env": _pairs(args.env, "--env"),
        "cwd": args.cwd,
        "url": args.url,
        "headers": _pairs(args.header, "--header"),
    }
    if args.timeout is not None:
        config["timeout"] = args.timeout
    try:
        server = McpServerInput(
            name=args.name,
            type=transport,
            config={k: v for k, v in config.items() if v is not None},
            scope=args.scope,
            project_path=args.project_path,
            is_active=not args.inactive,
            is_trusted=args.trust,
            secret_keys=args.secret,
        )
    except ValidationError as exc:
        return fail(args, describe_validation_error(exc), EXIT_BAD_INPUT)
    return add_and_report(args, server)


def add_and_report(args: argparse.Namespace, server: McpServerInput) -> int:
    """Add ``server`` to the saved servers and say so (with how to trust it); a refusal exits 2 or 1."""
    catalog = open_catalog()
    result = acted(servers.add(catalog, server))
    record = result.server
    if not result.success or record is None:
        return refused(args, result)
    _warn_secrets(catalog, record)
    if args.json:
        print_json({"success": True, "server": record.to_json_dict()})
    else:
        print(f"Added {record.name} ({record.type.value}, id {record.id}).")
        if not record.is_trusted:
            print(f"It will not start until you trust it: {suggest('trust', record.name)}")
    return EXIT_OK


def cmd_add_json(args: argparse.Namespace) -> int:
    """``add-json FILE|-``: add the servers of a JSON file or standard input."""
    parsed = parse_servers_json(*read_input_text(args.file))
    catalog = open_catalog()
    taken = {record.name for record in catalog.all()} if args.on_conflict == "replace" else set()
    outcome = acted(servers.add_parsed(catalog, parsed, args.trust, args.on_conflict))
    results = [_add_json_row(catalog, result, taken) for result in outcome.results or []]
    ok = all(r["success"] or r.get("skipped") for r in results)
    if args.json:
        print_json({"success": ok, "results": results})
    else:
        for r in results:
            if r["success"]:
                print(f"{'replaced' if r.get('replaced') else 'added   '} {r['name']}")
            else:
                print(f"{'skipped' if r.get('skipped') else 'failed '}  {r['error']}")
    return EXIT_OK if ok else (EXIT_BAD_INPUT if not any(r["success"] for r in results) else EXIT_FAILED)


def _add_json_row(catalog: ServerCatalog, result: McpActionResult, replaced: set[str]) -> dict[str, Any]:
    """One server of ``add-json`` as printed with ``--json`` (``replaced``: the names a replace took over)."""
    if result.success and result.server is not None:
        _warn_secrets(catalog, result.server)
        row: dict[str, Any] = {"name": result.server.name, "success": True, "id": result.server.id}
        return row | {"replaced": True} if result.server.name in replaced else row
    if result.skipped:
        return {"name": result.server_name, "success": False, "skipped": True, "error": result.reason}
    return {"name": result.server_name, "success": False, "error": result.error}


def cmd_update(args: argparse.Namespace) -> int:
    """``update NAME``: change a server's name, command, arguments, env, URL or headers."""
    catalog = open_catalog()
    record = catalog.find(args.server)
    updates: dict[str, Any] = {}
    config: dict[str, Any] = {}
    if args.new_name is not None:
        updates["name"] = args.new_name
    for key in ("command", "cwd", "url"):
        if getattr(args, key) is not None:
            config[key] = getattr(args, key)
    if args.args is not None:
        config["args"] = args.args
    for key, flag, values in (("env", "--env", args.env), ("headers", "--header", args.header)):
        pairs = _pairs(values, flag)
        if pairs is not None:
            config[key] = pairs
    if args.timeout is not None:
        config["timeout"] = {"call": args.timeout}
    if config:
        updates["config"] = config
    if not updates:
        return fail(args, "nothing to update: give at least one field flag", EXIT_BAD_INPUT)
    result = acted(servers.update(catalog, record.id, updates | {"secretKeys": args.secret}))
    after = result.server
    if not result.success or after is None:
        return refused(args, result)
    _warn_secrets(catalog, after)
    if args.json:
        print_json({"success": True, "server": after.to_json_dict()})
    else:
        print(result.message)
        if record.is_trusted and not after.is_trusted:
            print(f"What it runs changed; trust it again: {suggest('trust', after.name)}")
    return EXIT_OK


def cmd_remove(args: argparse.Namespace) -> int:
    """``remove NAME``: remove a server (and its secrets; agents that used it are told)."""
    catalog = open_catalog()
    result = acted(servers.remove(catalog, catalog.find(args.server).id))
    if not result.success or result.server is None:
        return refused(args, result)
    if args.json:
        print_json({"success": True, "server": result.server.to_json_dict(), "agentsUpdated": result.agents_updated})
    else:
        print(result.message)
    return EXIT_OK


def cmd_set_active(args: argparse.Namespace) -> int:
    """``enable NAME`` / ``disable NAME``."""
    catalog = open_catalog()
    result = acted(servers.update(catalog, catalog.find(args.server).id, {"isActive": args.active}))
    after = result.server
    if not result.success or after is None:
        return refused(args, result)
    if args.json:
        print_json({"success": True, "server": after.to_json_dict()})
    else:
        print(messages.switched_on(after.name, after.is_active))
    return EXIT_OK


def cmd_trust(args: argparse.Namespace) -> int:
    """``trust NAME``: show what the server runs, then mark it trusted."""
    catalog = open_catalog()
    record = catalog.find(args.server)
    if not args.json:
        print("This server will run:" if record.type.value == "stdio" else "This server connects to:")
        for label, value in describe_launch(record):
            print(f"  {label + ':':<16}{value}")
        for field, old, new in launch_changes(record) if record.trusted_launch else []:
            print(f"  changed {field}: {_shown(old)} -> {_shown(new)}")
    if not args.yes:
        if not sys.stdin.isatty():
            return fail(args, "not a terminal: pass --yes to trust without asking", EXIT_BAD_INPUT)
        if input("Trust it? [y/N] ").strip().lower() not in ("y", "yes"):
            print("Not trusted.")
            return EXIT_FAILED
    result = acted(servers.trust(catalog, record.id))
    if not result.success or result.server is None:
        return refused(args, result)
    if args.json:
        rows = describe_launch(result.server)
        print_json({"success": True, "server": result.server.to_json_dict(), "launch": dict(rows), "rows": rows})
    else:
        print(result.message)
    return EXIT_OK


def _warn_secrets(catalog: ServerCatalog, record: McpServerRecord) -> None:
    has_secret = any(v.startswith("${secret:") for v in [*record.config.env.values(), *record.config.headers.values()])
    if has_secret and catalog.vault.warning:
        warn(catalog.vault.warning)


def _shown(value: Any) -> str:
    """A changed value as the prompt prints it (already escaped by ``launch_changes``)."""
    if value is None:
        return "(unset)"
    if isinstance(value, list):
        return "[" + ", ".join(f"'{v}'" for v in value) + "]"
    return f"'{value}'" if isinstance(value, str) else str(value)
