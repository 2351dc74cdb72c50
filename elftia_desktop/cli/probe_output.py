"""The arguments and the output of ``test``, ``discover`` and ``logs``, in a light module.

These commands run on the pool host when one can be reached (``attached.py``) and in-process
otherwise (``runtime.py``); both print through the functions here, from the same JSON form of the
result, so the output and the exit code are the same either way. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from elftia_desktop.cli.entry_args import NO_DAEMON_HELP
from elftia_desktop.cli.output import EXIT_FAILED, EXIT_OK, add_json_flag, print_json, warn_held
from elftia_desktop.core.extensions import short_label
from elftia_desktop.core.text_rules import visible

PROBES = {
    "test": "start a server and list its tools",
    "discover": "list a server's tools, prompts, resources and resource templates",
    "logs": "start a server and show what it logged (stderr and log messages)",
}
"""The commands of this module and their help."""


def add_probe_arguments(p: argparse.ArgumentParser, *, follow: bool = False) -> None:
    """``SERVER [--json] [--no-browser] [--no-daemon]`` (and ``--follow``, for ``logs``)."""
    p.add_argument("server", help="name or id")
    add_json_flag(p)
    p.add_argument(
        "--no-browser", action="store_true", help="on a sign-in, only print the address (do not open a browser)"
    )
    p.add_argument("--no-daemon", action="store_true", help=NO_DAEMON_HELP)
    if follow:
        p.add_argument(
            "--follow",
            "-f",
            action="store_true",
            help="then print each new line as the server logs it, until Ctrl+C (--json: one JSON object a line)",
        )


def _marked(name: str, disabled: set[str]) -> str:
    return f"{name}  (disabled)" if name in disabled else name


def show_test(
    result: dict[str, Any], disabled: set[str], as_json: bool, held: tuple[str, Sequence[str]] = ("", ())
) -> int:
    """Print a test's result (``McpTestResult`` as JSON); ``disabled``: the server's tools switched off;
    ``held``: the server's name and the tools held back for review (named on stderr, beside any JSON)."""
    server, held_names = held
    if held_names:
        warn_held(server, held_names)
    if as_json:
        print_json(result)
    elif result["success"]:
        tools = list(result["tools"])
        off = f", {len(disabled)} disabled" if disabled else ""
        off += f", {len(held_names)} held back for review" if held_names else ""
        print(f"OK in {result['durationMs']:.0f} ms: {len(tools)} tools{off}")
        _print_extensions(result)
        for name in tools:
            print(f"  {_marked(name, disabled)}")
    else:
        print(f"error: {result.get('error')}", file=sys.stderr)
    return EXIT_OK if result["success"] else EXIT_FAILED


def show_discover(result: dict[str, Any], disabled: set[str], as_json: bool) -> int:
    """Print what discover found (``McpDiscoverResult`` as JSON), a section per kind."""
    if as_json:
        print_json(result)
        return EXIT_OK if result["success"] else EXIT_FAILED
    if result.get("error") and not result["tools"]:
        print(f"error: {result['error']}", file=sys.stderr)
        return EXIT_FAILED
    _print_extensions(result)
    sections = [
        ("Tools", [(_marked(t["name"], disabled), t.get("description")) for t in result["tools"]]),
        ("Prompts", [(p["name"], p.get("description")) for p in result["prompts"]]),
        ("Resources", [(r["uri"], r.get("name")) for r in result["resources"]]),
        ("Resource templates", [(t["uriTemplate"], t.get("name")) for t in result["resourceTemplates"]]),
    ]
    for title, rows in sections:
        print(f"{title} ({len(rows)}):")
        for name, text in rows:
            print(f"  {name}" + (f"  {(text or '').splitlines()[0][:80]}" if text else ""))
    for kind, error in (result.get("errors") or {}).items():
        print(f"warning: {kind}: {error}", file=sys.stderr)
    return EXIT_OK if result["success"] else EXIT_FAILED


def _print_extensions(result: dict[str, Any]) -> None:
    """The extensions the server declared, in a few words (nothing when it declared none)."""
    extensions = (result.get("serverInfo") or {}).get("extensions") or []
    if extensions:
        print(f"Extensions: {short_label(extensions)} ({', '.join(extensions)})")


def show_logs(lines: list[str], error: str | None, as_json: bool) -> int:
    """Print a server's log lines, then the error of its start, if any."""
    if as_json:
        print_json({"success": error is None, "lines": lines, "error": error})
    else:
        for line in lines:
            print(visible(line))  # a server's output never drives the terminal (escape sequences, fake lines)
        if error:
            print(f"error: {error}", file=sys.stderr)
    return EXIT_OK if error is None else EXIT_FAILED


def show_log_line(line: str, as_json: bool) -> None:
    """One line of a followed log (``--json``: a JSON object ``{"line": ...}`` on a line of its own)."""
    print(json.dumps({"line": line}, ensure_ascii=False) if as_json else visible(line), flush=True)


def show_followed(lines: list[str], error: str | None, as_json: bool) -> int | None:
    """The start of ``logs --follow``: a failed start as without ``--follow`` (its exit code); else the
    lines so far, and None (each new line follows)."""
    if error is not None:
        return show_logs(lines, error, as_json)
    for line in lines:
        show_log_line(line, as_json)
    return None
