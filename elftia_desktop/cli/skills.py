"""``elftia-mcp skills SERVER [--json] [--accept URI…|--all] [--read URI [--file URI]]``: Skills over MCP.

Lists the skills a server serves (SEP-2640: ``skills/list``), each with its pin status: a skill
changed (or new) since it was accepted is held back until ``--accept`` (or ``--all``) pins it as
it is now. ``--read`` prints a file of an accepted skill (its ``SKILL.md`` by default) after its
size, digest and frontmatter were checked against the skill's entry. A skill's text is the
server's, shown as data: escape sequences in it never reach the terminal.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from elftia_desktop.cli.auth import sign_in_flag
from elftia_desktop.cli.context import open_catalog, run_services
from elftia_desktop.cli.output import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, add_json_flag, fail, print_json, suggest
from elftia_desktop.core.errors import ElftiaError
from elftia_desktop.core.text_rules import visible

if TYPE_CHECKING:
    from elftia_desktop.application.services import Services


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``skills``."""
    p = sub.add_parser("skills", help="list a server's skills (Skills over MCP), accept changed ones, read one")
    p.add_argument("server", help="name or id")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--accept", nargs="+", metavar="URI", help="accept these held-back skills as they are now")
    which.add_argument("--all", action="store_true", help="accept every held-back skill as it is now")
    which.add_argument("--read", metavar="URI", help="print this skill's SKILL.md (checked against its digests)")
    p.add_argument("--file", metavar="URI", help="with --read: print this file of the skill instead")
    add_json_flag(p)
    sign_in_flag(p)
    p.set_defaults(handler=cmd_skills)


def cmd_skills(args: argparse.Namespace) -> int:
    """``skills SERVER``: list, accept or read."""
    if args.file and not args.read:
        return fail(args, "--file needs --read SKILL_URI (the skill the file belongs to)", EXIT_BAD_INPUT)
    record = open_catalog().find(args.server)
    try:
        if args.read:
            text = run_services(args, lambda s: s.mcp.skills.read(record.id, args.read, args.file))
            return _show_text(args, text)
        listed = run_services(args, lambda s: _list_and_accept(s, record.id, args))
    except ElftiaError as exc:
        return fail(args, str(exc), EXIT_BAD_INPUT if args.accept else EXIT_FAILED)
    skills, accepted = listed
    if args.json:
        print_json({"server": record.name, "accepted": accepted, "skills": skills})
    elif args.accept or args.all:
        print(f"Accepted: {', '.join(accepted)}." if accepted else "Nothing was held back; nothing to accept.")
    else:
        _print_skills(record.name, skills)
    return EXIT_OK


async def _list_and_accept(
    services: Services, server_id: str, args: argparse.Namespace
) -> tuple[list[dict[str, Any]], list[str]]:
    """List (which compares with the pins), accept what was asked, then the list as it stands."""
    skills = services.mcp.skills
    listed = await skills.list(server_id)
    if not (args.accept or args.all):
        return [s.as_json() for s in listed], []
    accepted = skills.pins.accept(server_id, None if args.all else args.accept)
    return [s.as_json() for s in await skills.list(server_id)], accepted


def _show_text(args: argparse.Namespace, text: str) -> int:
    if args.json:
        print_json({"uri": args.file or args.read, "skill": args.read, "text": text})
    else:
        for line in text.splitlines():
            print(visible(line))  # each line escaped: the server's text never drives the terminal
    return EXIT_OK


def _print_skills(server: str, skills: list[dict[str, Any]]) -> None:
    if not skills:
        print(f"{visible(server)} lists no skills.")
        return
    held = [s for s in skills if s["held"]]
    for skill in skills:
        count = 0 if skill["dynamic"] else len(skill["resources"])
        files = "dynamic (no digests)" if skill["dynamic"] else f"{count} file{'s' if count != 1 else ''}"
        mark = f"  [{skill['status']}: held back until accepted]" if skill["held"] else ""
        print(f"{visible(skill['name'])}  {visible(skill['uri'])}  ({files}){mark}")
        print(f"    {visible(skill['description'].splitlines()[0] if skill['description'] else '')}")
        for finding in skill["findings"]:  # the tool lint, on the frontmatter's texts
            print(f"    lint {finding['rule']}: {visible(finding['detail'])}")
    if held:
        uris = [s["uri"] for s in held]
        print(f"Held back until accepted: {suggest('skills', server, '--accept', *uris)}")
