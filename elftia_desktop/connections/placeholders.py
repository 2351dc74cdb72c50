"""Placeholders in imported server configs, expanded when a server starts.

Other apps' configs write ``${env:NAME}`` (VS Code, Cursor), ``${NAME}`` and
``${NAME:-default}`` (Claude Code), ``${userHome}`` (VS Code) in env values, headers,
arguments, the working folder and URLs. They are kept verbatim in our records (and shown to the
user) and expanded here from the login shell's environment just before the start. Our own
``${secret:NAME}`` references are left for the secret vault. ``${input:id}`` (a VS Code prompt)
and unset variables without a default stop the start with a message that says what to set. A
variable that looks secret (by name or value) is never put on a command line, which every local
user can read: the start stops and says to pass it through the environment instead.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from elftia_desktop.core.errors import ServerStartFailed
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.core.secret_detect import secret_kind
from elftia_desktop.core.secrets import looks_secret
from elftia_desktop.core.text_rules import quoted

PLACEHOLDER = re.compile(r"\$\{([^}]+)\}")


def expand(
    value: str, env: Mapping[str, str], where: str, record: McpServerRecord, *, command_line: bool = False
) -> str:
    """``value`` with every placeholder but ``${secret:...}`` replaced; ``where`` names the field.

    With ``command_line``, a secret-looking variable is refused instead of filled in.
    """

    def replace(match: re.Match[str]) -> str:
        """The value of one placeholder (``${secret:...}`` stays as it is)."""
        body = match.group(1)
        if body.startswith("secret:"):
            return match.group(0)
        if body.startswith("input:"):
            raise ServerStartFailed(
                f"{where} asks for the input {quoted(body[6:])} ({match.group(0)}), which only VS Code "
                "can prompt for. Edit the server and put the value in its place.",
                record.id,
                server_name=record.name,
            )
        if body == "userHome":
            return os.path.expanduser("~")
        name, _, default = body.removeprefix("env:").partition(":-")
        found = env.get(name)
        if found is not None and command_line and (looks_secret(name) or secret_kind(found)):
            raise ServerStartFailed(
                f"{where} would put the value of {name} ({match.group(0)}) on the command line, "
                f"where every user of this computer can read it. Pass it through the environment instead: "
                f"set the server's variable {name}={match.group(0)} and take it out of {where}.",
                record.id,
                server_name=record.name,
            )
        if found is not None:
            return found
        if ":-" in body:
            return default
        raise ServerStartFailed(
            f"{where} uses {match.group(0)}, but {name} is not set in your environment. "
            f"Set {name} (in your shell profile) or edit the server and put the value in its place.",
            record.id,
            server_name=record.name,
        )

    return PLACEHOLDER.sub(replace, value) if "${" in value else value


def expand_record(record: McpServerRecord, env: Mapping[str, str]) -> McpServerRecord:
    """A copy of ``record`` whose launch fields have their placeholders expanded."""
    if not _has_placeholder(record):
        return record
    out = record.model_copy(deep=True)
    config = out.config
    config.args = [expand(a, env, f"argument {i + 1}", record, command_line=True) for i, a in enumerate(config.args)]
    config.env = {k: expand(v, env, f"environment variable {k}", record) for k, v in config.env.items()}
    config.headers = {k: expand(v, env, f"header {k}", record) for k, v in config.headers.items()}
    if config.cwd:
        config.cwd = expand(config.cwd, env, "the working folder", record)
    if config.url:
        config.url = expand(config.url, env, "the URL", record)
    if config.command:
        config.command = expand(config.command, env, "the command", record, command_line=True)
    return out


def _has_placeholder(record: McpServerRecord) -> bool:
    config = record.config
    texts = [*config.args, *config.env.values(), *config.headers.values(), config.cwd or "", config.url or ""]
    return any("${" in t and not t.startswith("${secret:") for t in [*texts, config.command or ""])
