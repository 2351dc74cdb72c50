"""``elftia-mcp serve``: the gateway, and ``elftia-mcp gateway token|install|uninstall``.

``serve`` runs one MCP server over stdio (or Streamable HTTP with ``--http``) that serves an
agent's servers, or every active server, through this process's own pool (``cli/gateway_serve.py``,
imported only for ``serve``, so other commands never load the SDK). Nothing but the protocol is
written to stdout; logs go to stderr.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from elftia_desktop.cli.context import open_agents, open_cli_stores
from elftia_desktop.cli.entry_args import add_serve_arguments
from elftia_desktop.cli.output import EXIT_BAD_INPUT, EXIT_OK, add_json_flag, fail, print_json, warn
from elftia_desktop.core.errors import AgentNotFound, JsonInputError
from elftia_desktop.core.text_rules import quoted
from elftia_desktop.gateway.install import (
    INSTALL_APPS,
    InstallError,
    InstallPlan,
    apply_plan,
    entry_name,
    gateway_entry,
    install_app,
    plan_install,
    plan_uninstall,
)
from elftia_desktop.gateway.token import gateway_token, reset_token


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``serve`` and ``gateway``."""
    p = sub.add_parser("serve", help="run the gateway: one MCP server with the tools of Elftia's servers")
    add_serve_arguments(p)  # shared with the fast path that attaches to the pool host
    p.set_defaults(handler=cmd_serve)
    _register_gateway(sub)


def _register_gateway(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    gateway = sub.add_parser("gateway", help="the gateway's token, and its entry in other apps' configs")
    gsub = gateway.add_subparsers(dest="gateway_command", metavar="ACTION", required=True)
    p = gsub.add_parser("token", help="print the bearer token of 'serve --http' (created on first use)")
    p.add_argument("--reset", action="store_true", help="make a new token (clients with the old one get 401)")
    add_json_flag(p)
    p.set_defaults(handler=cmd_token)

    apps = ", ".join(INSTALL_APPS)
    p = gsub.add_parser("install", help="add the gateway to another app's MCP config", epilog=f"Apps: {apps}")
    _target_args(p)
    p.add_argument("--hub", action="store_true", help="the entry serves find_tools and call_tool")
    p.add_argument(
        "--stdio",
        action="store_true",
        help="run 'elftia-mcp serve' from the app (default for apps that accept HTTP servers: the pool host's URL)",
    )
    p.add_argument(
        "--no-autostart",
        action="store_true",
        help="for an HTTP entry: do not turn on start at login nor start the pool host now",
    )
    p.add_argument("--dry-run", action="store_true", help="show the diff, write nothing")
    p.set_defaults(handler=cmd_install)

    p = gsub.add_parser(
        "uninstall", help="remove the gateway's entry from another app's config", epilog=f"Apps: {apps}"
    )
    _target_args(p)
    p.add_argument("--dry-run", action="store_true", help="show the diff, write nothing")
    p.set_defaults(handler=cmd_uninstall)

    p = gsub.add_parser("entry", help="print the entry that runs the gateway, in an app's format")
    p.add_argument("app", help=f"one of {apps}")
    p.add_argument("--agent", metavar="NAME", help="serve this agent (default: all active servers)")
    p.add_argument("--hub", action="store_true", help="the entry serves find_tools and call_tool")
    p.set_defaults(handler=cmd_entry)


def _target_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("app", help=f"one of {', '.join(INSTALL_APPS)}")
    p.add_argument("--agent", metavar="NAME", help="serve this agent (default: all active servers)")
    p.add_argument("--name", help="the entry's name (default: elftia, or elftia-AGENT)")
    p.add_argument("--file", type=Path, help="change this config file instead of the app's own")
    add_json_flag(p)


def cmd_serve(args: argparse.Namespace) -> int:
    """``serve``: the server side of the SDK and the pool load only for this command."""
    from elftia_desktop.cli.gateway_serve import serve_command

    return serve_command(args)


def cmd_token(args: argparse.Namespace) -> int:
    """``gateway token``: print (or ``--reset``) the bearer token of ``serve --http``."""
    vault = open_cli_stores().catalog.vault  # the assembly point's vault: the one ``serve`` checks against
    token = reset_token(vault) if args.reset else gateway_token(vault)
    if args.json:
        print_json({"token": token, "header": f"Authorization: Bearer {token}", "keyring": vault.uses_keyring})
    else:
        print(token)
        if vault.warning:
            warn(vault.warning)
    return EXIT_OK


def _agent_name(agent: str | None) -> str | None:
    """The agent's name as stored; ``AgentNotFound`` naming the agents there are."""
    return open_agents().get(agent).name if agent else None


def _show(args: argparse.Namespace, plan: InstallPlan, backup: Path | None, verb: str, host: str | None) -> None:
    if args.json:
        written = {"backup": str(backup) if backup else None, "written": not args.dry_run, "host": host}
        print_json(plan.to_json_dict() | written)
        return
    print(plan.diff or f"{plan.path}: nothing to change", end="" if plan.diff else "\n")
    for warning in plan.warnings:
        warn(warning)
    if args.dry_run:
        print(f"(dry run: {plan.path} was not changed)")
    elif plan.changed:
        print(f"{verb} {quoted(plan.name)} {'in' if verb == 'Wrote' else 'from'} {plan.app.label}'s config {plan.path}")
        if backup is not None:
            print(f"Backup of the previous file: {backup}")
    if host is not None:
        print(host)


def _run_plan(args: argparse.Namespace, make: Callable[[], InstallPlan], verb: str) -> int:
    try:
        plan = make()
    except AgentNotFound as exc:
        return fail(args, f"--agent: {exc}", EXIT_BAD_INPUT)
    except (InstallError, JsonInputError) as exc:
        return fail(args, str(exc), EXIT_BAD_INPUT)
    backup = None if args.dry_run else apply_plan(plan)
    host = _start_host(plan) if not args.dry_run and plan.http is not None and plan.http.login is not None else None
    _show(args, plan, backup, verb, host)
    return EXIT_OK


def _start_host(plan: InstallPlan) -> str:
    """Start the pool host that stays, unless one runs (what an HTTP entry needs now); what happened."""
    from elftia_desktop.cli.daemon import start_staying
    from elftia_desktop.host import attach

    if not attach.supported():
        return "the pool host is not started: ELFTIA_NO_DAEMON is set"
    try:
        status, started = start_staying()
    except attach.NoHost as exc:
        return f"the pool host could not be started now: {exc}"
    pid = status["pid"]
    if status.get("hostedBy") == "window":
        return f"the Elftia Desktop window hosts the pool now (pid {pid})"
    if status.get("stays"):
        return f"the pool host {'started' if started else 'runs'} (pid {pid}) and stays until stopped"
    return f"the pool host running now (pid {pid}) exits when unused; a host that stays starts at your next login"


def cmd_install(args: argparse.Namespace) -> int:
    """``gateway install APP``: write the gateway's entry into another app's config (diff, backup).

    An app that accepts HTTP servers gets the pool host's URL and the bearer token's header
    (``gateway/http_install.py``), unless ``--stdio``.
    """

    def plan() -> InstallPlan:
        """The plan, with the token (made on first use) unless the entry is stdio."""
        agent = _agent_name(args.agent)
        token = None if args.stdio else gateway_token(open_cli_stores().catalog.vault)
        login = not args.no_autostart
        return plan_install(args.app, agent, args.hub, path=args.file, name=args.name, token=token, login=login)

    return _run_plan(args, plan, "Wrote")


def cmd_uninstall(args: argparse.Namespace) -> int:
    """``gateway uninstall APP``: remove only the gateway's entry from another app's config."""
    return _run_plan(
        args, lambda: plan_uninstall(args.app, _agent_name(args.agent), path=args.file, name=args.name), "Removed"
    )


def cmd_entry(args: argparse.Namespace) -> int:
    """``gateway entry APP``: print the entry that runs the gateway, in that app's format."""
    try:
        fmt = install_app(args.app)
        agent = _agent_name(args.agent)
    except AgentNotFound as exc:
        return fail(args, f"--agent: {exc}", EXIT_BAD_INPUT)
    except InstallError as exc:
        return fail(args, str(exc), EXIT_BAD_INPUT)
    print_json({fmt.root_key: {entry_name(agent): gateway_entry(fmt, agent, args.hub)}})
    return EXIT_OK
