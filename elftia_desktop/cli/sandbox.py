"""``elftia-mcp sandbox NAME``: show or change a stdio server's sandbox.

Flags change the profile and save it; a change that lets the server do more than what was trusted
(``--off``, a new path, a wider network) takes the trust away until ``elftia-mcp trust NAME``,
which shows the difference. Without a change (or with ``--show``) it prints the profile.
"""

from __future__ import annotations

import argparse
from typing import Any

from pydantic import ValidationError

from elftia_desktop.application import servers
from elftia_desktop.cli.context import open_catalog
from elftia_desktop.cli.output import EXIT_BAD_INPUT, EXIT_OK, acted, add_json_flag, fail, print_json, refused, suggest
from elftia_desktop.core.models import McpSandbox, McpServerRecord, McpServerTransport
from elftia_desktop.core.sandbox import describe_sandbox
from elftia_desktop.core.text_rules import quoted
from elftia_desktop.core.trust import launch_changes
from elftia_desktop.platform.sandbox import sandbox_support


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``sandbox``."""
    p = sub.add_parser(
        "sandbox",
        help="show or change what a stdio server may read, write and reach",
        epilog="Example: elftia-mcp sandbox files --on --allow-write ~/Documents --net none",
    )
    p.add_argument("server", help="name or id")
    switch = p.add_mutually_exclusive_group()
    switch.add_argument("--on", dest="enabled", action="store_const", const=True, help="run it in its sandbox")
    switch.add_argument("--off", dest="enabled", action="store_const", const=False, help="run it with your rights")
    p.add_argument("--allow-read", action="append", metavar="PATH", default=[], help="a path it may read")
    p.add_argument("--allow-write", action="append", metavar="PATH", default=[], help="a path it may write")
    net = p.add_mutually_exclusive_group()
    net.add_argument("--allow-net", action="append", metavar="HOST[:PORT]", default=[], help="a host it may reach")
    net.add_argument("--net", choices=["none", "loopback", "any"], help="its network")
    p.add_argument("--show", action="store_true", help="print the profile (after any change)")
    add_json_flag(p)
    p.set_defaults(handler=cmd_sandbox)


def changed_profile(current: McpSandbox | None, args: argparse.Namespace) -> McpSandbox | None:
    """The profile after the flags, or None when no flag changes anything."""
    asked = args.enabled is not None or args.allow_read or args.allow_write or args.allow_net or args.net
    if not asked:
        return None
    data: dict[str, Any] = (current or McpSandbox(enabled=False)).model_dump(by_alias=True)
    if args.enabled is not None:
        data["enabled"] = args.enabled
    elif current is None:
        data["enabled"] = True  # giving paths or a network to a server without a sandbox turns it on
    data["allowRead"] = [*data["allowRead"], *args.allow_read]
    data["allowWrite"] = [*data["allowWrite"], *args.allow_write]
    if args.allow_net:
        data["net"] = "allow"
        data["allowNet"] = [*(data["allowNet"] if current and current.net == "allow" else []), *args.allow_net]
    elif args.net:
        data["net"], data["allowNet"] = args.net, []
    return McpSandbox.model_validate(data)


def cmd_sandbox(args: argparse.Namespace) -> int:
    """``sandbox NAME [flags]``."""
    catalog = open_catalog()
    record = catalog.find(args.server)
    if record.type is not McpServerTransport.STDIO:
        return fail(
            args, f"sandbox: {quoted(record.name)} is a {record.type.value} server; only stdio servers run in one"
        )
    try:
        profile = changed_profile(record.sandbox, args)
    except ValidationError as exc:
        return fail(args, "sandbox: " + str(exc.errors()[0]["msg"]).removeprefix("Value error, "), EXIT_BAD_INPUT)
    if profile is not None:
        result = acted(servers.update(catalog, record.id, {"sandbox": profile.to_json_dict()}))
        if not result.success or result.server is None:
            return refused(args, result)
        after = result.server
    else:
        after = record
    return _report(args, record, after, changed=profile is not None)


def _report(args: argparse.Namespace, before: McpServerRecord, after: McpServerRecord, *, changed: bool) -> int:
    rows = describe_sandbox(after.sandbox, sandbox_support())
    retrust = before.is_trusted and not after.is_trusted
    if args.json:
        print_json(
            {"success": True, "sandbox": after.sandbox.to_json_dict() if after.sandbox else None, "rows": rows}
            | {"needsTrust": retrust, "supported": sandbox_support() is None}
        )
        return EXIT_OK
    if changed:
        print(f"Saved the sandbox of {quoted(after.name)}.")
    if args.show or not changed:
        for label, value in rows:
            print(f"  {label + ':':<12}{value}")
    if retrust:
        print("It may now do more than you trusted:")
        for field, old, new in launch_changes(after):
            print(f"  {field}: {old} -> {new}")
        print(f"Trust it again to start it: {suggest('trust', after.name)}")
    return EXIT_OK
