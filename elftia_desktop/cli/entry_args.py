"""The arguments of ``serve`` and ``call``, in a light module: the attached fast path parses them too.

Both commands attach to the pool host when one can be reached (``--no-daemon``, or
``ELFTIA_NO_DAEMON=1``, runs them on their own pool), so their parsers are built here, importing
nothing but the standard library, and shared by the full CLI (``gateway.py``, ``runtime.py``) and
the fast path (``attached.py``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from elftia_desktop.cli.output import EXIT_BAD_INPUT, fail

if TYPE_CHECKING:
    from elftia_desktop.core.argument_check import FieldIssue

NO_DAEMON_HELP = "do not attach to the pool host (elftia-mcp daemon): run this command's own servers"


def add_serve_arguments(p: argparse.ArgumentParser) -> None:
    """``serve [--agent NAME] [--hub] [--timeout S] [--http [HOST:]PORT] [--log-level L] [--no-daemon]``."""
    p.add_argument("--agent", metavar="NAME", help="serve this agent's servers and tools (default: all active)")
    p.add_argument("--hub", action="store_true", help="serve find_tools and call_tool instead of every tool")
    p.add_argument("--timeout", type=float, metavar="SECONDS", help="per-call timeout (default: each server's)")
    p.add_argument(
        "--http",
        metavar="[HOST:]PORT",
        help="serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio (host 127.0.0.1 unless given); "
        "every request needs the bearer token of 'elftia-mcp gateway token'",
    )
    p.add_argument("--log-level", default="warning", choices=["debug", "info", "warning", "error"])
    p.add_argument("--no-daemon", action="store_true", help=NO_DAEMON_HELP)


def add_call_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``call SERVER TOOL`` (both attached and in-process)."""
    p.epilog = (
        "A tool that is not auto-approved asks first on a terminal (allow once, always allow, deny). "
        "Exit codes: 0 the tool ran, 1 it failed or reported an error, 2 bad input, "
        "5 not approved (denied, or off a terminal without --yes)."
    )
    p.add_argument("server", help="name or id")
    p.add_argument("tool", help="the tool's name")
    p.add_argument(
        "--yes", action="store_true", help="allow the call without asking, when the tool is not auto-approved"
    )
    p.add_argument("--args", default="{}", metavar="JSON", help='arguments as a JSON object, e.g. \'{"text": "hi"}\'')
    p.add_argument("--timeout", type=float, help="seconds to wait for the result (default: the server's, 120)")
    p.add_argument(
        "--elicit",
        choices=["accept-defaults", "decline"],
        help="answer a server's questions without asking (default: ask on a terminal, else decline)",
    )
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.add_argument(
        "--no-browser", action="store_true", help="on a sign-in, only print the address (do not open a browser)"
    )
    p.add_argument("--no-daemon", action="store_true", help=NO_DAEMON_HELP)


def show_call_response(response: dict[str, Any], as_json: bool) -> int:
    """Print a tool call's response (its JSON form) as ``call`` does; the exit code."""
    if as_json:
        print(json.dumps(response, indent=2, ensure_ascii=False, default=str))
    else:
        for block in response.get("content") or []:
            if block.get("type") == "text":
                print(block.get("text", ""))
            else:
                print(json.dumps(block, ensure_ascii=False))
        if response.get("isError"):
            print("error: the tool reported an error", file=sys.stderr)
    return 1 if response.get("isError") else 0


_REQUIRED = "Required: fill this in."
"""The form's wording of a missing required argument (the window shows it under the field)."""


def show_bad_arguments(args: argparse.Namespace, issues: Sequence[FieldIssue]) -> int:
    """Exit 2 naming every argument that does not fit the schema (missing ones first) and what was expected."""
    ordered = sorted(issues, key=lambda issue: issue.message != _REQUIRED)  # a misspelt key: the missing one first
    problems = [{"field": i.where, "message": i.message.replace(_REQUIRED, "required, but not given")} for i in ordered]
    lines = [f"{p['field']}: {p['message'].removesuffix('.')}" for p in problems]  # no ".;" before "not sent"
    if len(lines) == 1:
        text = f"--args: {lines[0]}; not sent"
    else:
        text = f"--args: {len(lines)} problems; not sent:\n  " + "\n  ".join(lines)
    return fail(args, text, EXIT_BAD_INPUT, field=ordered[0].where, problems=problems)
