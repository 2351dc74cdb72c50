"""Finding and installing servers from the command line: ``registry search|show|install``,
``outdated``, ``update-server`` and ``add-bundle``.

The registry is ``--registry URL``, else ``ELFTIA_REGISTRY_URL``, else the Settings page's
registry, else the official one. Installs add the server untrusted; ``elftia-mcp trust NAME``
shows what it runs and confirms it.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

from elftia_desktop.application import registry as registry_actions
from elftia_desktop.cli.context import open_catalog
from elftia_desktop.cli.output import (
    EXIT_FAILED,
    EXIT_OK,
    acted,
    add_json_flag,
    print_json,
    print_table,
    refused,
    suggest,
    warn,
)
from elftia_desktop.core.models import McpActionResult
from elftia_desktop.core.text_rules import quoted, visible
from elftia_desktop.deps.checker import DependencyChecker
from elftia_desktop.registry.cache import FEATURED_SOURCE, featured_entries
from elftia_desktop.registry.client import RegistryClient, registry_url_from_env
from elftia_desktop.registry.entry import RegistryEntry, runtime_label, transport_label
from elftia_desktop.registry.errors import RegistryBadAnswer
from elftia_desktop.registry.form import FormField, parse_value_options
from elftia_desktop.registry.install import Prepared, bundle_file_plan, bundle_runtime_problems, prepare
from elftia_desktop.registry.plan import default_server_name
from elftia_desktop.registry.updates import find_outdated


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the registry commands."""
    p = sub.add_parser("registry", help="find and install servers from an MCP registry")
    rsub = p.add_subparsers(dest="registry_command", metavar="ACTION", required=True)
    s = rsub.add_parser("search", help="search the registry")
    s.add_argument("query", nargs="?", default="", metavar="QUERY")
    _registry_flag(s)
    s.set_defaults(handler=cmd_search)
    s = rsub.add_parser("show", help="show an entry: its packages, inputs and the exact command")
    s.add_argument("name", metavar="NAME")
    s.add_argument("--version", dest="entry_version", metavar="V")
    _registry_flag(s)
    s.set_defaults(handler=cmd_show)
    s = rsub.add_parser("install", help="add an entry's server (untrusted until you trust it)")
    s.add_argument("name", metavar="NAME")
    s.add_argument("--version", dest="entry_version", metavar="V")
    _value_flag(s)
    s.add_argument("--name", dest="server_name", metavar="SERVER_NAME", help="the name of the new server")
    s.add_argument("--allow-deprecated", action="store_true", help="install a deprecated or deleted entry")
    _registry_flag(s)
    s.set_defaults(handler=cmd_install)

    p = sub.add_parser("outdated", help="servers installed from a registry that have a newer version")
    add_json_flag(p)
    p.set_defaults(handler=cmd_outdated)
    p = sub.add_parser("update-server", help="re-pin a server to its registry's latest version")
    p.add_argument("server", metavar="NAME")
    _value_flag(p)
    add_json_flag(p)
    p.set_defaults(handler=cmd_update_server)
    p = sub.add_parser("add-bundle", help="install a .mcpb bundle (untrusted until you trust it)")
    p.add_argument("file", metavar="FILE.mcpb")
    _value_flag(p)
    p.add_argument("--name", dest="server_name", metavar="SERVER_NAME")
    add_json_flag(p)
    p.set_defaults(handler=cmd_add_bundle)


def _registry_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--registry", metavar="URL", help="the registry (default: ELFTIA_REGISTRY_URL or the setting)")
    add_json_flag(p)


def _value_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--value", action="append", default=[], metavar="KEY=VALUE", help="an input (repeat)")


def registry_url(args: argparse.Namespace) -> str:
    """The registry a command uses."""
    if getattr(args, "registry", None):
        return str(args.registry).rstrip("/")
    from elftia_desktop.core.settings_store import SettingsStore

    return registry_url_from_env(SettingsStore().load().registry_url)


def entry_row(entry: RegistryEntry) -> list[Any]:
    """The table row of an entry."""
    server = entry.server
    status = "" if entry.installable else entry.status_text[:60]
    return [server.name, server.version, entry.source, runtime_label(server), status, server.description[:60]]


def cmd_search(args: argparse.Namespace) -> int:
    """``registry search``: the registry's matches, and the featured ones when no registry was named."""
    entries = asyncio.run(RegistryClient(registry_url(args)).search(args.query, limit=50))
    if not args.registry:
        words = args.query.lower().split()
        entries += [
            e for e in featured_entries() if all(w in f"{e.server.name} {e.server.description}".lower() for w in words)
        ]
    if args.json:
        print_json([e.to_wire() | {"source": e.source} for e in entries])
    elif entries:
        print_table(["NAME", "VERSION", "SOURCE", "RUNTIME", "STATUS", "DESCRIPTION"], [entry_row(e) for e in entries])
    else:
        print(f"Nothing matches {quoted(args.query)}.")
    return EXIT_OK


async def find_entry(url: str, name: str, version: str | None) -> RegistryEntry:
    """One entry from the registry, else from the featured ones; the registry's error otherwise."""
    try:
        return await RegistryClient(url).entry(name, version or "latest")
    except RegistryBadAnswer:
        for entry in featured_entries():
            if entry.server.name == name and version in (None, entry.server.version):
                return entry
        raise


def cmd_show(args: argparse.Namespace) -> int:
    """``registry show``: the entry, the package chosen for this machine, its inputs and command."""

    async def run() -> tuple[RegistryEntry, Prepared]:
        """The entry and what installing it takes on this machine."""
        entry = await find_entry(registry_url(args), args.name, args.entry_version)
        return entry, await prepare(entry, DependencyChecker(), allow_inactive=True)

    entry, prepared = asyncio.run(run())
    details = entry_details(entry, prepared)
    if args.json:
        print_json(details)
        return EXIT_OK
    for key in ("name", "version", "source", "status", "description", "runtime", "package", "command"):
        print(f"{key + ':':13}{entry.status_text if key == 'status' else details[key]}")
    if details["runtimeMissing"]:
        print(f"{'':13}({details['runtimeMissing']})")
    if prepared.fields:
        print("inputs:")
        print_table(["KEY", "REQUIRED", "SECRET", "DEFAULT", "DESCRIPTION"], [_field_row(f) for f in prepared.fields])
    return EXIT_OK


def entry_details(entry: RegistryEntry, prepared: Prepared) -> dict[str, Any]:
    """What ``show`` prints."""
    check = prepared.runtime_check
    missing = None
    if check is not None and not check.installed:
        missing = f"needs {check.command}, which is not installed: {_how_to_install(check.command, check.installable)}"
    return {
        "name": entry.server.name,
        "version": prepared.plan.version,
        "source": entry.source,
        "status": entry.status.value,
        "statusMessage": entry.status_message,
        "description": entry.server.description,
        "runtime": runtime_label(entry.server),
        "transport": transport_label(entry.server),
        "package": prepared.plan.kind,
        "command": prepared.preview(),
        "runtimeMissing": missing,
        "inputs": [_field_json(f) for f in prepared.fields],
    }


def _how_to_install(command: str, installable: bool) -> str:
    return f"elftia-mcp install-dep {command}" if installable else f"see elftia-mcp deps {command}"


def _field_row(field: FormField) -> list[Any]:
    return [field.key, "yes" if field.required else "", "yes" if field.secret else "", field.default, field.label]


def _field_json(field: FormField) -> dict[str, Any]:
    return {
        "key": field.key,
        "label": field.label,
        "kind": field.kind,
        "required": field.required,
        "secret": field.secret,
        "default": field.default,
        "choices": list(field.choices),
        "format": field.format,
    }


def cmd_install(args: argparse.Namespace) -> int:
    """``registry install``: add the entry's server untrusted, pinned to its exact version."""
    values = parse_value_options(args.value)

    async def run() -> tuple[RegistryEntry, Prepared]:
        """The entry and what installing it takes on this machine."""
        entry = await find_entry(registry_url(args), args.name, args.entry_version)
        return entry, await prepare(entry, DependencyChecker(), allow_inactive=args.allow_deprecated)

    entry, prepared = asyncio.run(run())
    server = prepared.to_input(args.server_name or default_server_name(entry), values)
    check = prepared.runtime_check
    if check is not None and not check.installed:
        how = _how_to_install(check.command, check.installable)
        warn(f"{check.command} is not installed; the server cannot start until it is ({how})")
    added = acted(registry_actions.install(open_catalog(), server, prepared.bundle))
    return _report_added(args, added, entry.server.postInstallInstructions)


def _report_added(args: argparse.Namespace, result: McpActionResult, after: str | None = None) -> int:
    """Say what was added; ``after``: the entry's ``postInstallInstructions``, shown as text (never run)."""
    record = result.server
    if not result.success or record is None:
        return refused(args, result)
    target = record.config.url or " ".join([record.config.command or "", *record.config.args])
    if args.json:
        print_json({"success": True, "server": record.to_json_dict(), "postInstallInstructions": after})
        return EXIT_OK
    print(f"Added {record.name} (untrusted): {target}")
    print(f"Check what it runs and confirm it with: {suggest('trust', record.name)}")
    if after and after.strip():
        print("The publisher's post-install instructions (not run by Elftia; read before following them):")
        for line in after.strip().splitlines():
            print(f"  {visible(line)}")
    return EXIT_OK


def cmd_add_bundle(args: argparse.Namespace) -> int:
    """``add-bundle``: install a ``.mcpb`` file."""
    values = parse_value_options(args.value)
    plan = bundle_file_plan(Path(args.file))
    for problem in asyncio.run(bundle_runtime_problems(plan, DependencyChecker())):
        warn(f"this bundle {problem}; it may not start")
    manifest = plan.bundle.manifest
    server = plan.to_input(args.server_name or manifest.display_name or manifest.name, values)
    if not args.json:
        print(f"{manifest.display_name or manifest.name} {manifest.version} by {manifest.author.name or 'unknown'}")
        print(f"Signature: {plan.bundle.signature.text}")
        if manifest.tools:
            print(f"Tools: {', '.join(t.name for t in manifest.tools)}")
    return _report_added(args, acted(registry_actions.install(open_catalog(), server, plan)))


def cmd_outdated(args: argparse.Namespace) -> int:
    """``outdated``: servers whose registry has a newer version."""
    records = open_catalog().all()
    found, problems = asyncio.run(find_outdated(records, {}))
    for problem in problems:
        warn(problem)
    if args.json:
        print_json(
            [
                {"name": o.record.name, "entry": o.entry.server.name, "current": o.current, "latest": o.latest}
                for o in found
            ]
        )
    elif found:
        print_table(
            ["SERVER", "ENTRY", "INSTALLED", "LATEST"],
            [[o.record.name, o.entry.server.name, o.current, o.latest] for o in found],
        )
    else:
        print("Every server installed from a registry is up to date.")
    return EXIT_OK if not problems else EXIT_FAILED


def cmd_update_server(args: argparse.Namespace) -> int:
    """``update-server``: re-pin to the latest version, keep the inputs, ask trust again."""
    catalog = open_catalog()
    record = catalog.find(args.server)
    origin = record.registry_origin
    if origin is None or origin.registry in ("bundle", FEATURED_SOURCE):
        warn(f"{record.name} was not installed from a registry; nothing to update")
        return EXIT_FAILED
    extra = parse_value_options(args.value)

    async def run() -> Prepared:
        """The latest version and what installing it takes on this machine."""
        entry = await RegistryClient(origin.registry).entry(origin.name, "latest")
        return await prepare(entry, DependencyChecker())

    prepared = asyncio.run(run())
    if prepared.bundle is not None:
        warn(f"{record.name} is an mcpb package: install the new version with 'elftia-mcp registry install'")
        return EXIT_FAILED
    if prepared.plan.version == origin.version:
        print(f"{record.name} is up to date ({origin.version}).")
        return EXIT_OK
    record.registry_origin = origin.model_copy(update={"inputs": origin.inputs | extra})
    result = acted(registry_actions.repin(catalog, record, prepared.plan))
    after = result.server
    if not result.success or after is None:
        return refused(args, result)
    print(f"Updated {after.name} {origin.version} → {prepared.plan.version}; it is untrusted until you trust it again.")
    return EXIT_OK
