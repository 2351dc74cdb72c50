"""The bridge to the ``claude`` CLI (Claude Code): detect it, list, add, remove and import its servers.

Every call is an asyncio subprocess with a timeout, run in its own process group so that a
timed-out call (``claude mcp get`` health-checks the server, which may start it) is killed
with its children. Listing reads Claude Code's own files (``~/.claude.json`` and the
project's ``.mcp.json``): that is faster than ``claude mcp list`` and starts no server.
Adding goes through ``claude mcp add-json`` so Claude Code validates and writes its own file.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from elftia_desktop.core.catalog import ConflictPolicy, ServerCatalog
from elftia_desktop.core.errors import ElftiaError
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.core.secrets import SecretVault
from elftia_desktop.core.text_rules import quoted
from elftia_desktop.integrations.claude_secrets import fill_secrets
from elftia_desktop.integrations.detector import (
    ConfigFile,
    ConfigLocation,
    Environment,
    claude_code_user_file,
    read_config,
)
from elftia_desktop.integrations.exporter import ExportResult, export_servers
from elftia_desktop.integrations.importer import (
    ImportOutcome,
    ImportPreview,
    apply_import,
    load_entries,
    preview_import,
)
from elftia_desktop.platform.commands import find_command
from elftia_desktop.platform.groups import kill_process, spawn_options

ClaudeScope = Literal["user", "local", "project"]
DEFAULT_TIMEOUT = 30.0
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_GET_FIELDS = ("scope", "status", "type", "command", "args", "url", "timeout")
_QUIET_ENV = {"DISABLE_AUTOUPDATER": "1", "NO_COLOR": "1", "FORCE_COLOR": "0", "CI": "1"}


@dataclass(frozen=True)
class ClaudeServer:
    """One server Claude Code knows, from its files."""

    name: str
    scope: str
    """user, local (this project's entry in ``~/.claude.json``) or project (``.mcp.json``)."""
    runs: str
    """The command line it runs, or its URL."""
    source: str
    """The file it is in."""
    transport: str | None
    """stdio, sse or http; None when its entry could not be read."""
    error: str | None = None
    """Why its entry could not be read."""

    def as_json(self) -> dict[str, Any]:
        """The row as ``claude list --json`` prints it (``error`` only when there is one)."""
        row: dict[str, Any] = {
            "name": self.name,
            "scope": self.scope,
            "runs": self.runs,
            "source": self.source,
            "transport": self.transport,
        }
        return row | ({"error": self.error} if self.error else {})


class ClaudeCliError(ElftiaError):
    """The ``claude`` CLI failed; the message says which command and what it printed."""


class ClaudeCliMissing(ClaudeCliError):
    """The ``claude`` CLI is not installed (or not on the PATH given)."""


@dataclass
class CliOutput:
    """What one ``claude`` call printed."""

    returncode: int
    stdout: str
    stderr: str


@dataclass
class ClaudeInfo:
    """Where the CLI is and which version it reports."""

    path: str
    version: str


class ClaudeCli:
    """Talks to one ``claude`` executable with a given environment and working folder.

    Args:
        executable: the ``claude`` program; found on ``env["PATH"]`` when not given.
        env: the environment for the CLI (default: this process's); ``HOME`` and
            ``CLAUDE_CONFIG_DIR`` decide which config files it uses.
        cwd: the project folder (``local`` and ``project`` scopes belong to it).
        timeout: seconds one call may take.
    """

    def __init__(
        self,
        executable: str | None = None,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.env = dict(os.environ if env is None else env)
        self.cwd = Path(cwd) if cwd else Path.cwd()
        self.timeout = timeout
        self.executable = executable or self._find()

    def _find(self) -> str | None:
        found = find_command("claude", self.env.get("PATH", os.environ.get("PATH", "")))
        if found:
            return found
        home = Path(self.env.get("HOME") or self.env.get("USERPROFILE") or Path.home())
        for candidate in (home / ".claude" / "local" / "claude", home / ".local" / "bin" / "claude"):
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
        return None

    @property
    def machine(self) -> Environment:
        """The home folder and environment the CLI sees, for reading its files."""
        home = self.env.get("HOME") or self.env.get("USERPROFILE")
        return Environment(Path(home) if home else Path.home(), self.env, sys.platform)

    def _argv(self, args: Iterable[str]) -> list[str]:
        if not self.executable:
            raise ClaudeCliMissing(
                "The claude CLI (Claude Code) was not found on the PATH. Install it with "
                "'npm install -g @anthropic-ai/claude-code' and try again."
            )
        head = [self.executable]
        if sys.platform == "win32" and self.executable.lower().endswith((".cmd", ".bat")):
            head = ["cmd", "/c", self.executable]
        return [*head, *args]

    async def run(self, *args: str, time_limit: float | None = None, check: bool = True) -> CliOutput:
        """Run ``claude ARGS``; ``ClaudeCliError`` on a timeout or (with ``check``) a non-zero exit."""
        argv = self._argv(args)
        limit = time_limit or self.timeout
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=self.cwd,
                env=self.env | _QUIET_ENV,
                **spawn_options(),
            )
        except OSError as exc:
            raise ClaudeCliMissing(f"The claude CLI at {argv[0]} could not be started: {exc}") from exc
        try:
            out, err = await asyncio.wait_for(proc.communicate(), limit)
        except TimeoutError:
            _kill(proc)
            await proc.wait()
            raise ClaudeCliError(f"'claude {' '.join(args[:3])}' did not finish within {limit:g} s") from None
        result = CliOutput(proc.returncode or 0, _clean(out), _clean(err))
        if check and result.returncode != 0:
            said = (result.stderr or result.stdout).strip() or "no output"
            raise ClaudeCliError(f"'claude {' '.join(args[:3])}' failed (exit code {result.returncode}): {said}")
        return result

    async def detect(self) -> ClaudeInfo:
        """The CLI's path and version; ``ClaudeCliMissing`` when it is not installed."""
        output = await self.run("--version")
        version = output.stdout.strip().split(" ", 1)[0]
        return ClaudeInfo(str(self.executable), version)

    def config_files(self) -> list[ConfigFile]:
        """Claude Code's files that exist: the user file, then the project's ``.mcp.json``."""
        locations = [
            ConfigLocation("claude-code", claude_code_user_file(self.machine)),
            ConfigLocation("claude-code", self.cwd / ".mcp.json", "project", str(self.cwd)),
        ]
        return [f for f in (read_config(loc) for loc in locations) if f is not None]

    async def list_servers(self) -> list[ClaudeServer]:
        """Claude Code's servers from its files: name, scope (user/local/project), transport, target."""
        files = await asyncio.to_thread(self.config_files)
        broken = [f.error for f in files if f.error]
        if broken:
            raise ClaudeCliError(broken[0])
        here = str(self.cwd.resolve())
        rows = []
        for entry in (e for f in files for e in load_entries(f)):
            in_claude_json = entry.key_path.startswith("projects[")
            if in_claude_json and entry.project_path not in (here, str(self.cwd)):
                continue  # local to another project
            scope = "user" if entry.scope == "user" else ("local" if in_claude_json else "project")
            transport = entry.server.type.value if entry.server else None
            rows.append(ClaudeServer(entry.name, scope, entry.runs(), entry.path, transport, entry.error or None))
        return rows

    async def get(self, name: str) -> dict[str, Any]:
        """``claude mcp get NAME`` parsed into fields (it also health-checks the server)."""
        output = await self.run("mcp", "get", name, check=False)
        text = output.stdout.strip()
        if not text.startswith(f"{name}:"):
            said = (output.stderr or output.stdout).strip() or f"exit code {output.returncode}"
            raise ClaudeCliError(f"claude has no MCP server named {quoted(name)}: {said}")
        return parse_get_output(text)

    async def add(
        self,
        record: McpServerRecord,
        vault: SecretVault | None = None,
        scope: ClaudeScope = "user",
        with_secrets: bool = False,
        name: str | None = None,
    ) -> ExportResult:
        """Add one of our servers with ``claude mcp add-json``; returns the entry as Claude Code keeps it.

        Secrets never go on the command line: the entry is sent with placeholders, and with
        ``with_secrets`` the values are then written into Claude Code's file (see ``claude_secrets``).
        """
        sent = export_servers([record], "claude-code", vault, False)
        target = name or record.name
        entry = sent.data["mcpServers"][record.name]
        await self.run("mcp", "add-json", "--scope", scope, target, json.dumps(entry))
        if not with_secrets:
            return sent
        result = export_servers([record], "claude-code", vault, True)
        full = result.data["mcpServers"][record.name]
        values = {
            field: {k: v for k, v in (full.get(field) or {}).items() if (entry.get(field) or {}).get(k) != v}
            for field in ("env", "headers")
        }
        if any(values.values()):
            path = self.cwd / ".mcp.json" if scope == "project" else claude_code_user_file(self.machine)
            await asyncio.to_thread(fill_secrets, path, scope, str(self.cwd.resolve()), target, values)
        return result

    async def remove(self, name: str, scope: ClaudeScope | None = None) -> None:
        """``claude mcp remove NAME [--scope S]``."""
        await self.run("mcp", "remove", name, *(["--scope", scope] if scope else []))

    async def preview_pull(self, catalog: ServerCatalog, names: Iterable[str] | None = None) -> ImportPreview:
        """What importing Claude Code's servers into ours would do."""
        files = await asyncio.to_thread(self.config_files)
        return preview_import(files, catalog.all(), names)

    async def pull(
        self,
        catalog: ServerCatalog,
        names: Iterable[str] | None = None,
        on_conflict: ConflictPolicy = "skip",
        trust: bool = False,
    ) -> list[ImportOutcome]:
        """Import Claude Code's servers into our catalog (untrusted unless ``trust``)."""
        preview = await self.preview_pull(catalog, names)
        return await asyncio.to_thread(apply_import, catalog, preview, on_conflict, trust)


def parse_get_output(text: str) -> dict[str, Any]:
    """Fields of ``claude mcp get``: scope, status, type, command, args, url, timeout, environment, headers."""
    lines = text.splitlines()
    out: dict[str, Any] = {"name": lines[0].rstrip(":").strip()}
    section: str | None = None
    for line in lines[1:]:
        if section and line.startswith("    "):
            key, _, value = line.strip().partition("=" if section == "environment" else ": ")
            out[section][key] = value
            continue
        key, sep, value = line.strip().partition(":")
        field = key.lower()
        section = None
        if sep and field in ("environment", "headers"):
            out[field] = {}
            section = field
        elif sep and field in _GET_FIELDS:
            out[field] = value.strip()
    return out


def _clean(data: bytes) -> str:
    return _ANSI.sub("", data.decode("utf-8", errors="replace"))


def _kill(proc: asyncio.subprocess.Process) -> None:
    kill_process(proc)
