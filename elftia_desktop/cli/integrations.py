"""Other apps' configs and the claude CLI: ``detect``, ``import``, ``export`` and ``claude list|push|pull|remove``."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from elftia_desktop.cli.context import open_catalog
from elftia_desktop.cli.output import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_OK,
    add_json_flag,
    fail,
    print_json,
    print_table,
    warn,
)
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.integrations.app_formats import APPS, app_format
from elftia_desktop.integrations.claude_cli import ClaudeCli, ClaudeCliMissing, ClaudeServer
from elftia_desktop.integrations.detector import (
    ConfigFile,
    ConfigLocation,
    Environment,
    candidate_locations,
    detect,
    read_config,
)
from elftia_desktop.integrations.exporter import export_servers, write_export
from elftia_desktop.integrations.importer import ImportOutcome, ImportPreview, apply_import, preview_import

POLICIES = ["rename", "skip", "replace"]
EXPORT_FORMATS = [fmt.id for fmt in APPS.values() if fmt.exportable]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``detect``, ``import``, ``export`` and ``claude``."""
    p = sub.add_parser("detect", help="find other apps' MCP config files")
    p.add_argument("--project", action="append", default=[], metavar="DIR", help="also look in this project")
    add_json_flag(p)
    p.set_defaults(handler=cmd_detect)

    p = sub.add_parser(
        "import",
        help="import servers from another app (preview unless NAMEs or --all are given)",
        epilog=f"Apps: {', '.join(APPS)}",
    )
    p.add_argument("app")
    p.add_argument("names", nargs="*", metavar="NAME", help="servers to import")
    p.add_argument("--all", action="store_true", help="import every server found")
    p.add_argument("--file", type=Path, help="read this file (in the app's format) instead of searching")
    p.add_argument("--project", action="append", default=[], metavar="DIR", help="also look in this project")
    p.add_argument("--on-conflict", choices=POLICIES, default="skip", help="when a name is taken (default: skip)")
    p.add_argument("--trust", action="store_true", help="mark them trusted (you checked what they run)")
    add_json_flag(p)
    p.set_defaults(handler=cmd_import)

    p = sub.add_parser("export", help="write servers in another app's format")
    p.add_argument("format", choices=EXPORT_FORMATS)
    p.add_argument("names", nargs="*", metavar="NAME", help="servers to export (default: all)")
    p.add_argument("--with-secrets", action="store_true", help="write secret values instead of placeholders")
    p.add_argument("--output", type=Path, help="write (or merge into) this file instead of printing")
    add_json_flag(p)
    p.set_defaults(handler=cmd_export)

    _register_claude(sub)


def _register_claude(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    claude = sub.add_parser("claude", help="the claude CLI (Claude Code): list, push, pull, remove")
    csub = claude.add_subparsers(dest="claude_command", metavar="ACTION", required=True)
    p = csub.add_parser("list", help="list Claude Code's MCP servers")
    add_json_flag(p)
    p.set_defaults(handler=cmd_claude_list)

    p = csub.add_parser("push", help="add one of our servers to Claude Code")
    p.add_argument("server", help="name or id")
    p.add_argument("--scope", choices=["user", "local", "project"], default="user")
    p.add_argument("--as", dest="new_name", help="the name in Claude Code")
    p.add_argument("--with-secrets", action="store_true", help="send secret values instead of ${VAR} placeholders")
    add_json_flag(p)
    p.set_defaults(handler=cmd_claude_push)

    p = csub.add_parser("pull", help="import Claude Code's servers into ours")
    p.add_argument("names", nargs="*", metavar="NAME", help="servers to import (default: all)")
    p.add_argument("--on-conflict", choices=POLICIES, default="skip")
    p.add_argument("--trust", action="store_true", help="mark them trusted (you checked what they run)")
    add_json_flag(p)
    p.set_defaults(handler=cmd_claude_pull)

    p = csub.add_parser("remove", help="remove a server from Claude Code")
    p.add_argument("name")
    p.add_argument("--scope", choices=["user", "local", "project"])
    add_json_flag(p)
    p.set_defaults(handler=cmd_claude_remove)


def _projects(args: argparse.Namespace) -> list[Path]:
    return [Path.cwd(), *(Path(p) for p in args.project)]


def cmd_detect(args: argparse.Namespace) -> int:
    """``detect``: the MCP configs of other apps found on this machine, with their servers."""
    found = detect(Environment.current(), _projects(args))
    if args.json:
        print_json({"success": True, "configs": [f.to_json_dict() for f in found]})
        return EXIT_OK
    if not found:
        print("No MCP config of another app was found.")
        return EXIT_OK
    rows = []
    for config in found:
        status = f"error: {config.error}" if config.error else f"{len(config.server_names)} server(s)"
        rows.append([app_format(config.location.app).id, config.location.scope, str(config.location.path), status])
    print_table(["APP", "SCOPE", "PATH", "SERVERS"], rows)
    print("Import with: elftia-mcp import APP --all (or name the servers)")
    return EXIT_OK


def _source_files(args: argparse.Namespace) -> list[ConfigFile]:
    app = app_format(args.app).id
    if args.file is not None:
        config = read_config(ConfigLocation(app, args.file))
        return [config] if config is not None else []
    return detect(Environment.current(), _projects(args), apps=[app])


def cmd_import(args: argparse.Namespace) -> int:
    """``import APP``: import servers from another app's config (untrusted, secrets to the keyring)."""
    try:
        fmt = app_format(args.app)
    except KeyError as exc:
        return fail(args, str(exc.args[0]), EXIT_BAD_INPUT)
    files = _source_files(args)
    if not files:
        looked = args.file or ", ".join(str(loc.path) for loc in candidate_locations(fmt.id, Environment.current()))
        return fail(args, f"No {fmt.label} config found (looked in: {looked})", EXIT_FAILED)
    catalog = open_catalog()
    preview = preview_import(files, catalog.all(), args.names or None)
    missing = _missing_names(args.names, preview)
    if missing:
        found = ", ".join(i.entry.name for i in preview_import(files, []).items) or "none"
        return fail(args, f"{fmt.label} has no server named {', '.join(missing)} (found: {found})", EXIT_BAD_INPUT)
    if not args.names and not args.all:
        return _show_preview(args, preview, fmt.label)
    outcomes = apply_import(catalog, preview, args.on_conflict, args.trust)
    return _report_outcomes(args, catalog, preview, outcomes)


def _missing_names(names: list[str], preview: ImportPreview) -> list[str]:
    have = {i.entry.name.lower() for i in preview.items}
    return [n for n in names if n.lower() not in have]


def _show_preview(args: argparse.Namespace, preview: ImportPreview, label: str) -> int:
    if args.json:
        print_json({"success": not preview.file_errors, "preview": preview.to_json_dict()})
        return EXIT_OK if not preview.file_errors else EXIT_FAILED
    for error in preview.file_errors:
        warn(error["error"])
    rows = []
    for item in preview.items:
        entry = item.entry
        state = (
            f"error: {entry.error}" if entry.error else (f"name taken ({item.conflict})" if item.conflict else "new")
        )
        rows.append([entry.name, entry.server.type.value if entry.server else "-", entry.runs()[:50], state])
    if rows:
        print_table(["NAME", "TYPE", "RUNS / URL", "STATUS"], rows)
    for item in preview.items:
        for warning in item.entry.warnings:
            print(f"  {item.entry.name}: {warning}")
    print(f"Nothing imported yet. Import from {label} with --all, or name the servers to import.")
    return EXIT_OK if not preview.file_errors else EXIT_FAILED


def _report_outcomes(
    args: argparse.Namespace, catalog: ServerCatalog, preview: ImportPreview, outcomes: list[ImportOutcome]
) -> int:
    failed = [o for o in outcomes if o.status == "failed"]
    ok = not failed and not preview.file_errors
    if catalog.vault.warning and any(o.server_id for o in outcomes):
        warn(catalog.vault.warning)
    if args.json:
        print_json(
            {
                "success": ok,
                "results": [o.to_json_dict() for o in outcomes],
                "preview": preview.to_json_dict(),
            }
        )
    else:
        for error in preview.file_errors:
            warn(error["error"])
        for outcome in outcomes:
            label = f"{outcome.name} -> {outcome.server_name}" if outcome.status == "renamed" else outcome.name
            print(f"{outcome.status:<9}{label}" + (f"  ({outcome.error})" if outcome.error else ""))
        if any(o.server_id for o in outcomes) and not args.trust:
            print("Imported servers do not start until you trust them: elftia-mcp trust NAME")
    if ok:
        return EXIT_OK
    return EXIT_BAD_INPUT if not any(o.server_id for o in outcomes) else EXIT_FAILED


def cmd_export(args: argparse.Namespace) -> int:
    """``export FORMAT [NAME…]``: servers in another app's format (secrets as placeholders by default)."""
    catalog = open_catalog()
    records = [catalog.find(n) for n in args.names] if args.names else catalog.all()
    result = export_servers(records, args.format, catalog.vault, args.with_secrets)
    replaced: list[str] = []
    if args.output is not None:
        replaced = write_export(result, args.output)
    if args.json:
        extra = {"path": str(args.output), "replaced": replaced} if args.output else {}
        print_json({"success": True, **result.to_json_dict(), **extra})
        return EXIT_OK
    for warning in result.warnings:
        warn(warning)
    if args.output is None:
        print(result.text, end="")
        return EXIT_OK
    count = len(result.data[app_format(args.format).root_key])
    print(f"Wrote {count} server(s) to {args.output}" + (f" (replaced: {', '.join(replaced)})" if replaced else ""))
    if result.placeholders:
        names = ", ".join(dict.fromkeys(p["placeholder"] for p in result.placeholders))
        print(f"Secrets were written as placeholders: {names}. Use --with-secrets to write the values.")
    return EXIT_OK


def cmd_claude_list(args: argparse.Namespace) -> int:
    """``claude list``: the servers the ``claude`` CLI knows."""
    cli = ClaudeCli()

    async def run() -> tuple[str | None, list[ClaudeServer]]:
        """The ``claude`` CLI's version and its servers."""
        try:
            version = (await cli.detect()).version
        except ClaudeCliMissing:
            version = None
        return version, await cli.list_servers()

    version, rows = asyncio.run(run())
    if args.json:
        print_json(
            {
                "success": True,
                "claude": {"path": cli.executable, "version": version},
                "servers": [r.as_json() for r in rows],
            }
        )
        return EXIT_OK
    print(f"claude {version} at {cli.executable}" if version else "warning: the claude CLI is not installed")
    if rows:
        print_table(
            ["NAME", "SCOPE", "TYPE", "RUNS / URL"],
            [[r.name, r.scope, r.transport or "?", r.runs[:60]] for r in rows],
        )
    else:
        print("Claude Code has no MCP servers configured here.")
    return EXIT_OK


def cmd_claude_push(args: argparse.Namespace) -> int:
    """``claude push NAME``: add one of our servers to Claude Code through the ``claude`` CLI."""
    catalog = open_catalog()
    record = catalog.find(args.server)
    result = asyncio.run(ClaudeCli().add(record, catalog.vault, args.scope, args.with_secrets, args.new_name))
    name = args.new_name or record.name
    if args.json:
        print_json({"success": True, "name": name, "scope": args.scope, **result.to_json_dict()})
        return EXIT_OK
    for warning in result.warnings:
        warn(warning)
    print(f"Added {name} to Claude Code ({args.scope} scope).")
    if result.placeholders:
        names = ", ".join(p["placeholder"] for p in result.placeholders)
        print(f"Its secrets are placeholders ({names}): set them in the environment, or push --with-secrets.")
    return EXIT_OK


def cmd_claude_pull(args: argparse.Namespace) -> int:
    """``claude pull``: import the ``claude`` CLI's servers (untrusted)."""
    catalog = open_catalog()
    cli = ClaudeCli()
    preview = asyncio.run(cli.preview_pull(catalog, args.names or None))
    missing = _missing_names(args.names, preview)
    if missing:
        return fail(args, f"Claude Code has no server named {', '.join(missing)}", EXIT_BAD_INPUT)
    outcomes = apply_import(catalog, preview, args.on_conflict, args.trust)
    if not outcomes and not args.json:
        print("Claude Code has no MCP servers to import.")
        return EXIT_OK
    return _report_outcomes(args, catalog, preview, outcomes)


def cmd_claude_remove(args: argparse.Namespace) -> int:
    """``claude remove NAME``: remove a server from the ``claude`` CLI."""
    asyncio.run(ClaudeCli().remove(args.name, args.scope))
    if args.json:
        print_json({"success": True, "name": args.name})
    else:
        print(f"Removed {args.name} from Claude Code.")
    return EXIT_OK
