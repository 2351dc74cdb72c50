"""``elftia-mcp``: every channel of the app from a terminal.

Each command group lives in its own module with a ``register(subparsers)`` function that adds
its sub-commands; a command's handler takes the parsed arguments and returns an exit code.
Exit codes: 0 success, 1 the action failed, 2 bad input.

Modules:

- ``__main__``: ``python -m elftia_desktop.cli``.
- ``agents``: Agent commands: ``agents list|add|update|remove``, and the per-tool switches ``disable-tool``,
  ``enable-tool`` and ``auto-approve``.
- ``approval``: ``elftia-mcp call``'s approval question for a tool that is not auto-approved.
- ``attached``: The fast path of ``serve``, ``call``, ``test``, ``discover`` and ``logs``: attach to the pool
  host first.
- ``auth``: ``elftia-mcp login NAME`` and ``elftia-mcp logout NAME``: OAuth sign-in of SSE/HTTP servers.
- ``context``: The CLI's way into the assembly point (``application.services``), with notices printed as
  warnings.
- ``crash``: What the CLI does with an error nobody foresaw: one line for the person, the traceback in a log.
- ``daemon``: ``elftia-mcp daemon start | stop | status | autostart [--json]``: the background pool host of this
  data folder.
- ``dependencies``: Runtime and preset commands: ``deps [COMMAND]``, ``install-dep COMMAND``, ``uninstall-dep
  COMMAND``, ``presets`` and ``add-preset NAME``.
- ``entry_args``: The arguments of ``serve`` and ``call``, in a light module: the attached fast path parses them
  too.
- ``gateway``: ``elftia-mcp serve``: the gateway, and ``elftia-mcp gateway token|install|uninstall``.
- ``gateway_serve``: ``elftia-mcp serve``: run the gateway (stdio, or Streamable HTTP with ``--http``) until its
  client leaves.
- ``gateway_signals``: SIGTERM and SIGINT for the in-process gateway (``serve --no-daemon``, ``serve --http``):
  stop, clean up, one line.
- ``integrations``: Other apps' configs and the claude CLI: ``detect``, ``import``, ``export`` and ``claude
  list|push|pull|remove``.
- ``output``: Printing for the CLI: aligned tables for people, ``--json`` for scripts, errors on stderr.
- ``probe_output``: The arguments and the output of ``test``, ``discover`` and ``logs``, in a light module.
- ``registry``: Finding and installing servers from the command line: ``registry search|show|install``,
  ``outdated``, ``update-server`` and ``add-bundle``.
- ``review``: ``elftia-mcp review SERVER [--accept TOOL…|--all]``: the tools a trusted server changed since it
  was trusted.
- ``runtime``: Commands that start servers: ``test``, ``discover``, ``call`` and ``logs``.
- ``sandbox``: ``elftia-mcp sandbox NAME``: show or change a stdio server's sandbox.
- ``servers``: Server list commands: ``list``, ``add``, ``add-json``, ``update``, ``remove``, ``enable``,
  ``disable`` and ``trust``, on the config store (no connection is made).
- ``skills``: ``elftia-mcp skills SERVER [--json] [--accept URI…|--all] [--read URI [--file URI]]``: Skills over
  MCP.
- ``task_status``: ``call``'s status lines for a task-augmented call: one line on stderr each time the task
  changes.
- ``tool_approval``: ``elftia-mcp tools NAME --approve TOOL / --ask TOOL``: which tools run without asking
  first.
- ``tool_formats``: ``elftia-mcp tools`` and ``elftia-mcp convert``: exactly what each provider API would
  receive.
- ``url_prompt``: The terminal's answer to a URL-mode elicitation: the domain first and loud, opened by nobody
  but the user.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from elftia_desktop import __version__
from elftia_desktop.cli.output import EXIT_BAD_INPUT, EXIT_FAILED, fail
from elftia_desktop.core.errors import ConfigError, ElftiaError, JsonInputError, is_input_error

ALL_GROUPS = (
    "servers",
    "runtime",
    "tool_formats",
    "agents",
    "dependencies",
    "integrations",
    "gateway",
    "auth",
    "registry",
    "daemon",
    "review",
    "sandbox",
    "skills",
)
"""Every command group, in the order ``--help`` lists them."""


def _group_names(command: str | None) -> Sequence[str]:
    """Only its own group for ``daemon`` and the commands that start servers, else every group.

    The other groups' imports would be most of those commands' start-up time (the pool host's too).
    """
    if command == "daemon":
        return ["daemon"]
    from elftia_desktop.cli import runtime

    return ["runtime"] if command in runtime.COMMANDS else ALL_GROUPS


def _groups(command: str | None = None) -> list[object]:
    """The modules of the command groups ``command`` needs (a group whose module does not exist is left out)."""
    import importlib

    names = _group_names(command)
    groups: list[object] = []
    for name in names:
        try:
            groups.append(importlib.import_module(f"elftia_desktop.cli.{name}"))
        except ModuleNotFoundError as exc:
            if exc.name != f"elftia_desktop.cli.{name}":
                raise
    return groups


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser (for ``command`` alone, when it is ``daemon`` or one that starts servers)."""
    parser = argparse.ArgumentParser(prog="elftia-mcp", description="Manage MCP servers for Elftia.")
    parser.add_argument("--version", action="version", version=f"elftia-mcp {__version__}")
    parser.add_argument("--debug", action="store_true", help="show the full traceback of an unexpected error")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for group in _groups(command):
        group.register(sub)  # type: ignore[attr-defined]
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    if command in ("serve", "call", "test", "discover", "logs") and not {"--", "-h", "--help", "--version"} & set(argv):
        from elftia_desktop.cli import attached  # attaches to the pool host before the rest loads

        return _handle(attached.parse([a for a in argv if a != "--debug"]), "--debug" in argv)
    parser = build_parser(command)
    tail: list[str] = []
    if "--" in argv:  # argparse mishandles "--" after a sub-command: split it off here
        split = argv.index("--")
        argv, tail = argv[:split], argv[split + 1 :]
    debug = "--debug" in argv  # accepted before or after the command
    args = parser.parse_args([a for a in argv if a != "--debug"])
    if tail:
        if not hasattr(args, "cmdline"):
            parser.error(f"'{args.command}' takes no command line after --")
        args.cmdline = tail
    return _handle(args, debug)


def _handle(args: argparse.Namespace, debug: bool) -> int:
    """Run the parsed command's handler, turning the app's errors into messages and exit codes."""
    try:
        code: int = args.handler(args)
    except JsonInputError as exc:
        return fail(args, str(exc), EXIT_BAD_INPUT, line=exc.line, column=exc.column)
    except ConfigError as exc:
        return fail(args, str(exc), EXIT_BAD_INPUT if is_input_error(exc) else EXIT_FAILED)
    except ElftiaError as exc:
        return fail(args, str(exc), EXIT_FAILED, details=exc.details or None)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        raise  # run() ends quietly on a closed pipe (| head)
    except Exception as exc:  # the last line of defence: one line and a log, never a traceback
        from elftia_desktop.cli.crash import report_crash

        return report_crash(args, exc, debug)
    return code


def run() -> None:
    """Console-script entry point."""
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:  # the output was piped into a program that stopped reading (| head)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    sys.exit(code)
