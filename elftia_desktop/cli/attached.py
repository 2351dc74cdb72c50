"""The fast path of ``serve``, ``call``, ``test``, ``discover`` and ``logs``: attach to the pool host first.

``elftia-mcp serve`` (stdio) becomes a forwarder to the host (``host/shim.py``); ``serve --http``
binds its port and has the host serve it (``host/http_owner.py``); ``call``, ``test``,
``discover`` and ``logs`` become requests to it (``host/client.py``), run on the host's pool: the
server's one process, its tool cache, its log. ``serve``, ``call``, ``test`` and ``discover``
start the daemon when none runs (the server they start then stays warm for the next command and
every app); ``logs`` does not: with no host running, nobody runs the server, and the command
starts it itself, as always. Without a host (``--no-daemon``, ``ELFTIA_NO_DAEMON=1``, no Unix
sockets, or the host cannot be started) each falls back to the in-process command, with the same
output and exit code; so does a command whose server wants a sign-in (it signs in in place, in
this terminal).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from elftia_desktop.cli.entry_args import (
    add_call_arguments,
    add_serve_arguments,
    show_bad_arguments,
    show_call_response,
)
from elftia_desktop.cli.output import EXIT_FAILED
from elftia_desktop.cli.probe_output import (
    PROBES,
    add_probe_arguments,
    show_discover,
    show_followed,
    show_log_line,
    show_logs,
    show_test,
)

if TYPE_CHECKING:
    from elftia_desktop.host.http_owner import Listener

ATTACHING = ("serve", "call", *PROBES)
"""The commands that attach to the host."""


def parse(argv: list[str]) -> argparse.Namespace:
    """``argv`` (one of ``ATTACHING`` and its options) parsed with the handlers of the fast path."""
    parser = argparse.ArgumentParser(prog="elftia-mcp", description="Manage MCP servers for Elftia.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    p = sub.add_parser("serve", help="run the gateway: one MCP server with the tools of Elftia's servers")
    add_serve_arguments(p)
    p.set_defaults(handler=serve)
    p = sub.add_parser("call", help="call one tool of a server")
    add_call_arguments(p)
    p.set_defaults(handler=call)
    for name, help_text in PROBES.items():
        p = sub.add_parser(name, help=help_text)
        add_probe_arguments(p, follow=name == "logs")
        p.set_defaults(handler=follow_logs if name == "logs" else probe)
    return parser.parse_args(argv)


def _attaching(args: argparse.Namespace) -> bool:
    from elftia_desktop.host.attach import supported

    return not args.no_daemon and supported()


def serve(args: argparse.Namespace) -> int:
    """``serve``: through the host when one can be reached, else the in-process gateway."""
    if _attaching(args):
        if args.timeout is not None and args.timeout <= 0:
            print("error: --timeout: expected a number of seconds greater than 0", file=sys.stderr)
            return 2
        if args.http is not None:
            from elftia_desktop.host.http_owner import run_http_owner

            return run_http_owner(args, lambda listener, announced: serve_here(args, listener, announced))
        from elftia_desktop.host.shim import run_shim

        code = run_shim(args.agent, args.hub, args.timeout, own_gateway_command(args), unknown_agent)
        if code is not None:
            return code
    from elftia_desktop.cli.gateway_serve import serve_command

    return serve_command(args)


def serve_here(args: argparse.Namespace, listener: Listener | None, announced: bool) -> int:
    """The in-process ``serve --http`` on the socket an attached one bound already (or on its own)."""
    from elftia_desktop.cli.gateway_serve import serve_command

    return serve_command(args, listener, announced=announced)


def unknown_agent(name: str) -> str | None:
    """Why ``--agent NAME`` names no agent (as ``serve --no-daemon`` says it); None when it names one."""
    from elftia_desktop.cli.context import open_agents
    from elftia_desktop.core.errors import AgentNotFound

    try:
        open_agents().get(name)
    except AgentNotFound as exc:
        return str(exc)
    return None


def own_gateway_command(args: argparse.Namespace) -> list[str]:
    """``serve --no-daemon`` with the options of ``args``: the attached gateway's fallback when no host can be had."""
    from elftia_desktop.platform.own_command import cli_argv

    options = ["--no-daemon", "--log-level", args.log_level]
    options += ["--agent", args.agent] if args.agent is not None else []
    options += ["--hub"] if args.hub else []
    options += ["--timeout", repr(args.timeout)] if args.timeout is not None else []
    return cli_argv("serve", *options)


def call(args: argparse.Namespace) -> int:
    """``call``: through the host when one can be reached, else in-process (also for a sign-in)."""
    if not _attaching(args):
        return cmd_call(args)
    from elftia_desktop.cli.approval import EXIT_NOT_APPROVED, TerminalApproval
    from elftia_desktop.cli.output import fail
    from elftia_desktop.core.errors import JsonInputError, ServerAuthRequired
    from elftia_desktop.core.json_input import parse_json_text
    from elftia_desktop.host import attach, client

    try:
        arguments = parse_json_text(args.args, "--args")
    except JsonInputError:
        return cmd_call(args)  # reports it exactly as always
    if not isinstance(arguments, dict) or (args.timeout is not None and args.timeout <= 0):
        return cmd_call(args)
    approval = TerminalApproval(args.yes)
    try:
        answer = approval.elicitation(terminal_answer(args.elicit))
        from elftia_desktop.cli.task_status import TaskStatusLines

        response = client.call(args.server, args.tool, arguments, args.timeout, answer, TaskStatusLines())
    except client.BadArguments as exc:
        from elftia_desktop.core.argument_check import FieldIssue

        return show_bad_arguments(args, [FieldIssue(tuple(i["path"]), str(i["message"])) for i in exc.issues])
    except attach.NoHost as exc:
        print(f"warning: {exc}; running the server in this command", file=sys.stderr)
        return cmd_call(args)
    except ServerAuthRequired:
        return cmd_call(args)  # signs in in place, in this terminal
    refused = approval.refused(args.server, args.tool)
    if refused is not None:
        return fail(args, refused, EXIT_NOT_APPROVED)
    return show_call_response(response, args.json)


def probe(args: argparse.Namespace) -> int:
    """``test``, ``discover``, ``logs``: on the host's pool when one can be reached, else in-process."""
    if not _attaching(args):
        return in_process(args)
    from elftia_desktop.core.errors import ServerAuthRequired
    from elftia_desktop.host import attach, client

    try:
        reply = client.probe(args.command, args.server, start=args.command != "logs")
    except attach.NoHost as exc:
        print(f"warning: {exc}; running the server in this command", file=sys.stderr)
        return in_process(args)
    except ServerAuthRequired:
        return in_process(args)  # signs in in place, in this terminal
    if reply is None:  # logs, and no host runs
        return in_process(args)
    if args.command == "logs":
        return show_logs(list(reply["lines"]), reply.get("error"), args.json)
    disabled = set(reply.get("disabledTools") or [])
    if args.command == "test":
        return show_test(dict(reply["result"]), disabled, args.json, (args.server, reply.get("heldTools") or []))
    return show_discover(dict(reply["result"]), disabled, args.json)


def follow_logs(args: argparse.Namespace) -> int:
    """``logs``: the host's log when a host runs (``--follow``: and each new line, the server held meanwhile),
    else in-process; no daemon is started."""
    if not args.follow:
        return probe(args)
    if not _attaching(args):
        return in_process(args)
    from elftia_desktop.core.errors import ServerAuthRequired
    from elftia_desktop.host import client

    replies = client.follow_logs(args.server)
    if replies is None:
        return in_process(args)
    try:
        first = next(replies)
    except ServerAuthRequired:
        return in_process(args)  # signs in in place, in this terminal
    code = show_followed(list(first["lines"]), first.get("error"), args.json)
    if code is not None:
        return code
    for reply in replies:
        show_log_line(str(reply.get("line")), args.json)
    print("error: Elftia's pool host stopped; no more lines of this server", file=sys.stderr)
    return EXIT_FAILED


def in_process(args: argparse.Namespace) -> int:
    """The in-process ``test``, ``discover`` or ``logs`` (the rest of the CLI loads only now)."""
    from elftia_desktop.cli import runtime

    handlers = {"test": runtime.cmd_test, "discover": runtime.cmd_discover, "logs": runtime.cmd_logs}
    return handlers[args.command](args)


def terminal_answer(mode: str | None) -> Callable[[str, str, dict[str, Any]], tuple[str, dict[str, Any] | None]]:
    """The answer to a server's question: the handler of the in-process ``call`` (loaded when a server asks)."""

    def answer(server_id: str, message: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        """Answer one question as ``--elicit`` says (on the terminal by default)."""
        import asyncio

        from elftia_desktop.cli.runtime import elicitation_handler

        async def ask() -> tuple[str, dict[str, Any] | None]:
            """The in-process handler's answer."""
            return await elicitation_handler(mode)(server_id, message, schema)

        return asyncio.run(ask())

    return answer


def cmd_call(args: argparse.Namespace) -> int:
    """The in-process ``call`` (the rest of the CLI loads only now)."""
    from elftia_desktop.cli.runtime import cmd_call as in_process

    return in_process(args)
