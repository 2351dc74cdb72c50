"""Commands that start servers: ``test``, ``discover``, ``call`` and ``logs``.

Each runs on the services of the assembly point (``application.services``: saved settings,
sign-in in place) and cleans up its servers before it exits. An untrusted server is refused
with a message that says how to trust it. When a server asks for input during ``call``
(elicitation), the CLI asks on the terminal field by field, offering the schema's defaults;
``--elicit accept-defaults|decline`` answers without a terminal (and without a terminal the
default is to decline).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from elftia_desktop.cli.approval import EXIT_NOT_APPROVED, TerminalApproval
from elftia_desktop.cli.context import open_catalog, run_services
from elftia_desktop.cli.entry_args import add_call_arguments, show_bad_arguments, show_call_response
from elftia_desktop.cli.output import EXIT_BAD_INPUT, fail
from elftia_desktop.cli.probe_output import (
    PROBES,
    add_probe_arguments,
    show_discover,
    show_followed,
    show_log_line,
    show_logs,
    show_test,
)
from elftia_desktop.core.argument_check import check
from elftia_desktop.core.errors import ElftiaError, JsonInputError
from elftia_desktop.core.json_input import parse_json_text
from elftia_desktop.core.url_elicitation import question_in

if TYPE_CHECKING:  # imported when a command runs (see _run): the other commands never load the SDK
    from elftia_desktop.application.services import Services
    from elftia_desktop.connections.callbacks import ElicitationHandler
    from elftia_desktop.connections.service import McpService
    from elftia_desktop.core.models import McpServerRecord, McpTestResult

T = TypeVar("T")
COMMANDS = ("test", "discover", "call", "logs")
"""The commands of this group (the CLI loads only this group for them)."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``test``, ``discover``, ``call`` and ``logs``."""
    handlers = {"test": cmd_test, "discover": cmd_discover, "call": cmd_call, "logs": cmd_logs}
    for name in COMMANDS:
        if name == "call":
            p = sub.add_parser("call", help="call one tool of a server")
            add_call_arguments(p)  # shared with the fast path that attaches to the pool host
        else:
            p = sub.add_parser(name, help=PROBES[name])
            add_probe_arguments(p, follow=name == "logs")  # shared with the fast path too
        p.set_defaults(handler=handlers[name])


def _run(work: Callable[[McpService, McpServerRecord], Awaitable[T]], server: str, args: argparse.Namespace) -> T:
    """Open the store, run ``work`` on a service (signing in in place), and always clean up its servers.

    The SDK is imported here, without the server side its package ``__init__`` pulls in
    (``sdk_light``); and the terminal's environment is the login environment already, so no
    login shell is run to find commands.
    """
    from elftia_desktop.connections.sdk_light import defer_sdk_package_inits

    defer_sdk_package_inits()
    from elftia_desktop.core.login_env import use_process_environment

    use_process_environment()

    async def main(services: Services) -> T:
        """The work on the named server, signed in where it asks."""
        record = await asyncio.to_thread(services.catalog.find, server)
        service = services.mcp
        return await service.signed_in(record.id, lambda: work(service, record))

    return run_services(args, main)


def cmd_test(args: argparse.Namespace) -> int:
    """``test NAME``: connect and list the server's tools."""
    result, held = _run(_tested, args.server, args)
    return show_test(result.to_json_dict(), _disabled_tools(args.server), args.json, (args.server, held))


async def _tested(service: McpService, record: McpServerRecord) -> tuple[McpTestResult, list[str]]:
    """The test's result and the tools its listing held back for review."""
    result = await service.test(record.id)
    return result, sorted(service.tool_guard.held.get(record.id, ()))


def _disabled_tools(server: str) -> set[str]:
    """The tools switched off on this server (listed, but never offered or called)."""
    return set(open_catalog().find(server).disabled_tools)


def cmd_discover(args: argparse.Namespace) -> int:
    """``discover NAME``: the server's tools, prompts, resources and resource templates."""
    result = _run(lambda service, record: service.discover(record.id), args.server, args)
    return show_discover(result.to_json_dict(), _disabled_tools(args.server), args.json)


def parse_args_json(text: str) -> dict[str, Any]:
    """The ``--args`` object; ``JsonInputError`` with line and column when malformed."""
    value = parse_json_text(text, "--args")
    if not isinstance(value, dict):
        raise JsonInputError(f'--args: expected a JSON object like {{"key": "value"}}, got {type(value).__name__}')
    return value


def schema_defaults(schema: dict[str, Any]) -> dict[str, Any]:
    """The defaults a requested schema offers, by field."""
    properties = schema.get("properties") or {}
    return {key: spec["default"] for key, spec in properties.items() if isinstance(spec, dict) and "default" in spec}


def _convert(text: str, spec: dict[str, Any]) -> Any:
    kind = spec.get("type")
    if kind == "boolean":
        return text.strip().lower() in ("y", "yes", "true", "1")
    if kind == "integer":
        return int(text)
    if kind == "number":
        return float(text)
    return text


def _ask_fields(message: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    """Ask on the terminal, field by field (blocking; run in a thread)."""
    print(f"The server asks: {message}", file=sys.stderr)
    content: dict[str, Any] = {}
    required = set(schema.get("required") or [])
    for key, spec in (schema.get("properties") or {}).items():
        spec = spec if isinstance(spec, dict) else {}
        label = spec.get("title") or spec.get("description") or key
        default = spec.get("default")
        choices = spec.get("enum")
        hint = f" [{'/'.join(map(str, choices))}]" if choices else ""
        while True:
            answer = input(f"  {label}{hint}" + (f" ({default})" if default is not None else "") + ": ")
            if not answer and default is not None:
                content[key] = default
                break
            if not answer and key not in required:
                break
            try:
                content[key] = _convert(answer, spec)
                break
            except ValueError:
                print(f"  expected a {spec.get('type')}", file=sys.stderr)
    return "accept", content


def elicitation_handler(mode: str | None) -> ElicitationHandler:
    """The CLI's answer to elicitation: ask on a terminal, accept the defaults, or decline."""

    async def handler(server_id: str, message: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        """Answer one elicitation as ``mode`` says (a URL question only at a terminal: ``url_prompt``)."""
        question = question_in(schema)
        if question is not None:
            from elftia_desktop.cli.url_prompt import ask_url, decline_unattended

            server = _server_name(server_id)
            if mode in ("accept-defaults", "decline") or not sys.stdin.isatty():
                return decline_unattended(server, question), None
            return await asyncio.to_thread(ask_url, server, message, question), None
        if mode == "accept-defaults":
            return "accept", schema_defaults(schema)
        if mode == "decline" or not sys.stdin.isatty():
            return "decline", None
        return await asyncio.to_thread(_ask_fields, message, schema)

    return handler


def _server_name(server_id: str) -> str:
    """The saved name of a server (its id when it is not found)."""
    try:
        return open_catalog().find(server_id).name
    except ElftiaError:  # a name for a message only: an unknown id is shown as it is
        return server_id


def cmd_call(args: argparse.Namespace) -> int:
    """``call NAME TOOL --args JSON``: call one tool and print its result."""
    try:
        arguments = parse_args_json(args.args)
    except JsonInputError as exc:
        return fail(args, str(exc), EXIT_BAD_INPUT, line=exc.line, column=exc.column)
    if args.timeout is not None and args.timeout <= 0:
        return fail(args, "--timeout: expected a number of seconds greater than 0", EXIT_BAD_INPUT)

    approval = TerminalApproval(args.yes)

    async def work(service: McpService, record: McpServerRecord) -> Any:
        """Check the tool exists and is approved, then call it (questions answered as ``--elicit`` says)."""
        from elftia_desktop.engine.approval import check_approval

        service.set_elicitation_handler(elicitation_handler(args.elicit))
        tools = {t.name: t for t in await service.list_server_tools(record.id)}
        tool = tools.get(args.tool)
        if tool is not None:  # an unknown or disabled tool: call_tool says so
            issues = check(tool.input_schema, arguments)
            if issues:
                return issues
        if await check_approval(service, record.id, args.tool, arguments, approval.ask) is not None:
            return record.name
        from elftia_desktop.cli.task_status import TaskStatusLines
        from elftia_desktop.connections.task_book import watching

        with watching(TaskStatusLines()):  # a task's status lines on stderr; Ctrl+C cancels it upstream
            return await service.call_tool(record.id, args.tool, arguments, timeout=args.timeout)

    response = _run(work, args.server, args)
    if isinstance(response, list):  # the arguments do not fit the tool's input schema: nothing was sent
        return show_bad_arguments(args, response)
    if isinstance(response, str):  # not approved: nothing was sent
        return fail(args, approval.refused(response, args.tool) or "not approved", EXIT_NOT_APPROVED)
    return show_call_response(response.to_json_dict(), args.json)


def cmd_logs(args: argparse.Namespace) -> int:
    """``logs NAME [--follow]``: start the server (a test) and print its log lines (then each new one)."""
    from elftia_desktop.application.server_logs import server_logs

    if args.follow:
        return _run(lambda service, record: _follow(service, record.id, args.json), args.server, args)
    report = _run(lambda service, record: server_logs(service, record.id), args.server, args)
    return show_logs(report.lines, report.error, args.json)


async def _follow(service: McpService, server_id: str, as_json: bool) -> int:
    """``logs --follow`` on this command's own pool: the lines so far, then each new one until interrupted."""
    from elftia_desktop.application.server_logs import server_logs
    from elftia_desktop.connections.events import LogLine

    report = await server_logs(service, server_id)
    new_lines: asyncio.Queue[str] = asyncio.Queue()

    def on_log(event: LogLine) -> None:
        """Queue a new line of this server."""
        if event.server_id == server_id:
            new_lines.put_nowait(event.line)

    unsubscribe = service.events.on(LogLine, on_log)
    try:
        code = show_followed(report.lines, report.error, as_json)
        while code is None:
            show_log_line(await new_lines.get(), as_json)
        return code
    finally:
        unsubscribe()
