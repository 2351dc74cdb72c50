"""Runtime and preset commands: ``deps [COMMAND]``, ``install-dep COMMAND``, ``uninstall-dep COMMAND``,
``presets`` and ``add-preset NAME``."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys
from typing import Any

from elftia_desktop.cli.output import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_OK,
    add_json_flag,
    fail,
    key_values,
    print_json,
    print_table,
)
from elftia_desktop.cli.servers import add_and_report
from elftia_desktop.core.models import DependencyCheckResult
from elftia_desktop.core.presets import (
    McpPreset,
    find_preset,
    load_presets,
    missing_values,
    preset_to_input,
    reject_unknown_values,
)
from elftia_desktop.core.text_rules import quoted
from elftia_desktop.deps.checker import DependencyChecker
from elftia_desktop.deps.installer import DependencyInstaller, is_managed
from elftia_desktop.deps.requirements import runtime_for


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the dependency and preset commands."""
    p = sub.add_parser("deps", help="check the runtimes servers are started with (npx, uvx, python, docker ...)")
    p.add_argument("target", nargs="?", metavar="COMMAND", help="one command or runtime (default: all)")
    add_json_flag(p)
    p.set_defaults(handler=cmd_deps)

    p = sub.add_parser("install-dep", help="install a runtime into the app's tools folder (uv, bun, deno, pipx)")
    p.add_argument("target", metavar="COMMAND")
    add_json_flag(p)
    p.set_defaults(handler=cmd_install_dep)

    p = sub.add_parser("uninstall-dep", help="remove a runtime the app installed")
    p.add_argument("target", metavar="COMMAND")
    add_json_flag(p)
    p.set_defaults(handler=cmd_uninstall_dep)

    p = sub.add_parser("presets", help="list the ready-made servers")
    add_json_flag(p)
    p.set_defaults(handler=cmd_presets)

    p = sub.add_parser(
        "add-preset",
        help="add a server from a preset",
        epilog="Example: elftia-mcp add-preset filesystem --value directory=~/Documents",
    )
    p.add_argument("preset", metavar="NAME", help="preset id or name (see 'elftia-mcp presets')")
    p.add_argument("--value", action="append", default=[], metavar="KEY=VALUE", help="a preset value (repeat)")
    p.add_argument("--env", action="append", default=[], metavar="KEY=VALUE", help="an environment variable (repeat)")
    p.add_argument("--name", dest="server_name", help="server name (default: the preset's)")
    p.add_argument("--trust", action="store_true", help="mark it trusted (you checked what it runs)")
    add_json_flag(p)
    p.set_defaults(handler=cmd_add_preset)


def _status(result: DependencyCheckResult) -> str:
    if not result.installed:
        return "missing"
    return "ok" if result.meets_minimum else "too old" if result.version else "broken"


def _row(result: DependencyCheckResult) -> list[Any]:
    where = result.path or ""
    if where and is_managed(where):
        where += "  (installed by the app)"
    return [result.command, result.runtime or "-", _status(result), result.version or "", where]


def cmd_deps(args: argparse.Namespace) -> int:
    """``deps``: every runtime of the table, found or not, with version, path and why it is needed."""
    checker = DependencyChecker()
    if args.target:
        result = asyncio.run(checker.check(args.target))
        if args.json:
            print_json(result.to_json_dict())
        else:
            print_table(["COMMAND", "RUNTIME", "STATUS", "VERSION", "PATH"], [_row(result)])
            if result.reason:
                print(f"\nWhy: {result.reason}")
            if result.instructions:
                print(f"\n{result.instructions}")
            if result.installable and not result.installed:
                print(f"\nOr let the app install it: elftia-mcp install-dep {result.command}")
        return EXIT_OK if result.installed and result.meets_minimum else EXIT_FAILED
    results = asyncio.run(checker.check_all())
    if args.json:
        print_json([r.to_json_dict() for r in results])
    else:
        print_table(["COMMAND", "RUNTIME", "STATUS", "VERSION", "PATH"], [_row(r) for r in results])
    return EXIT_OK


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def cmd_install_dep(args: argparse.Namespace) -> int:
    """``install-dep COMMAND``: install the runtime of a command into the app's tools folder."""
    if runtime_for(args.target) is None:
        return fail(args, f"'{args.target}' is not a runtime the app knows (see 'elftia-mcp deps')", EXIT_BAD_INPUT)
    result = asyncio.run(DependencyInstaller().install(args.target, _progress))
    if args.json:
        print_json(result.to_json_dict())
    elif result.success:
        print(f"Installed {args.target} {result.version or ''} at {result.path}".replace("  ", " "))
    else:
        print(f"error: {result.error}", file=sys.stderr)
        if result.instructions:
            print(result.instructions, file=sys.stderr)
    return EXIT_OK if result.success else EXIT_FAILED


def cmd_uninstall_dep(args: argparse.Namespace) -> int:
    """``uninstall-dep COMMAND``: remove a runtime the app installed."""
    if runtime_for(args.target) is None:
        return fail(args, f"'{args.target}' is not a runtime the app knows (see 'elftia-mcp deps')", EXIT_BAD_INPUT)
    result = asyncio.run(DependencyInstaller().uninstall(args.target))
    if args.json:
        print_json(result.to_json_dict())
    elif result.success:
        print("\n".join(result.log))
    else:
        print(f"error: {result.error}", file=sys.stderr)
    return EXIT_OK if result.success else EXIT_FAILED


def cmd_presets(args: argparse.Namespace) -> int:
    """``presets``: the built-in and official server presets."""
    presets = load_presets()
    if args.json:
        print_json([p.model_dump(mode="json", by_alias=True, exclude_none=True) for p in presets])
        return EXIT_OK
    rows = [[p.id, p.category, p.runtime or "(remote)", _needs(p), p.description] for p in presets]
    print_table(["ID", "CATEGORY", "RUNTIME", "NEEDS", "DESCRIPTION"], rows)
    return EXIT_OK


def _needs(preset: McpPreset) -> str:
    return ", ".join([*preset.required_values, *preset.required_env]) or "-"


def _ask_missing(preset: McpPreset, values: dict[str, str], env: dict[str, str]) -> None:
    """Prompt on the terminal for each missing required value (secrets without echo)."""
    missing_args, missing_env = missing_values(preset, values, env)
    for argument in preset.arguments:
        if argument.key in missing_args:
            hint = f" [{argument.placeholder}]" if argument.placeholder else ""
            prompt = f"{argument.label}{hint}: "
            values[argument.key] = getpass.getpass(prompt) if argument.secret else input(prompt)
    for variable in preset.env:
        if variable.name in missing_env:
            about = f" ({variable.description})" if variable.description else ""
            prompt = f"{variable.name}{about}: "
            env[variable.name] = getpass.getpass(prompt) if variable.secret else input(prompt)


def cmd_add_preset(args: argparse.Namespace) -> int:
    """``add-preset ID``: add a server from a preset, with the values it needs."""
    preset = find_preset(load_presets(), args.preset)
    values = key_values(args.value, "--value", "KEY=VALUE")
    env = key_values(args.env, "--env", "KEY=VALUE")
    reject_unknown_values(preset, values, env)
    missing_args, missing_env = missing_values(preset, values, env)
    if missing_args or missing_env:
        if args.json or not sys.stdin.isatty():
            flags = [f"--value {k}=..." for k in missing_args] + [f"--env {n}=..." for n in missing_env]
            return fail(args, f"preset {quoted(preset.id)} needs: {' '.join(flags)}", EXIT_BAD_INPUT)
        _ask_missing(preset, values, env)
    server = preset_to_input(preset, values, env, name=args.server_name)
    server.is_trusted = server.is_trusted or args.trust
    return add_and_report(args, server)
