"""Integration channels: other apps' configs (detect, preview, import, export) and the ``claude`` CLI.

File work (reading other apps' files, writing the catalog and the keyring) runs in worker
threads; the ``claude`` CLI runs as an asyncio subprocess. Nothing here blocks the loop.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from elftia_desktop.bridge.plumbing import Done, Failed, RouterCore

if TYPE_CHECKING:
    from elftia_desktop.bridge.channels import ExportInput
    from elftia_desktop.bridge.services import AppServices
    from elftia_desktop.core.models import McpServerRecord
    from elftia_desktop.integrations.claude_cli import ClaudeCli
    from elftia_desktop.integrations.transfer import SourceRef

CLAUDE_INSTALL_HELP = (
    "The claude CLI (Claude Code) is not installed. It needs Node.js 18 or newer; then run\n"
    "  npm install -g @anthropic-ai/claude-code\n"
    "and press Check again. More: https://docs.anthropic.com/en/docs/claude-code"
)


class IntegrationChannels(RouterCore):
    """``mcp:detect-configs``, ``mcp:preview-import``, ``mcp:import``, ``mcp:export``, ``mcp:export-file``,
    ``mcp:plan-export-into-app``, ``mcp:export-into-app``, ``mcp:claude-status``, ``mcp:claude-push``,
    ``mcp:claude-sources``."""

    def detect_configs(self, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:detect-configs``: other apps' config files on this machine, with server counts or errors."""

        async def work(s: AppServices) -> list[dict[str, Any]]:
            from elftia_desktop.integrations.detector import Environment, detect_async
            from elftia_desktop.integrations.transfer import describe_config

            found = await detect_async(Environment.current(), [Path.cwd()])
            return [describe_config(f) for f in found]

        return self._submit("mcp:detect-configs", work, on_done, on_error)

    def preview_import(
        self, sources: list[dict[str, Any]], on_done: Done | None = None, on_error: Failed | None = None
    ) -> int:
        """``mcp:preview-import``: ``{rows, fileErrors}`` for the files (nothing is written)."""
        data, refused = self._validated("mcp:preview-import", "ImportPreviewInput", {"sources": sources}, on_error)
        if data is None:
            return refused
        refs = _refs(data.sources)

        async def work(s: AppServices) -> dict[str, Any]:
            from elftia_desktop.integrations.transfer import preview_rows, preview_sources

            preview = await asyncio.to_thread(lambda: preview_sources(refs, s.catalog.all()))
            return {"rows": preview_rows(preview), "fileErrors": preview.file_errors}

        return self._submit("mcp:preview-import", work, on_done, on_error)

    def import_servers(
        self,
        sources: list[dict[str, Any]],
        choices: dict[str, str],
        on_done: Done | None = None,
        on_error: Failed | None = None,
    ) -> int:
        """``mcp:import``: import the chosen rows, untrusted, secrets to the keyring; ``{results, fileErrors}``."""
        params = {"sources": sources, "choices": choices}
        data, refused = self._validated("mcp:import", "ImportInput", params, on_error)
        if data is None:
            return refused
        refs, picked = _refs(data.sources), dict(data.choices)

        async def work(s: AppServices) -> dict[str, Any]:
            from elftia_desktop.integrations.transfer import import_rows

            outcomes, preview = await asyncio.to_thread(import_rows, s.catalog, refs, picked)
            if any(o.server_id for o in outcomes):
                s.mcp.notify_servers_changed()
            return {
                "results": [o.to_json_dict() for o in outcomes],
                "fileErrors": preview.file_errors,
                "vaultWarning": s.catalog.vault.warning,
            }

        return self._submit("mcp:import", work, on_done, on_error)

    def export_servers(
        self, server_ids: list[str], fmt: str, on_done: Done | None = None, on_error: Failed | None = None
    ) -> int:
        """``mcp:export``: ``{text, warnings, placeholders, skipped, appPath}`` (nothing is written)."""
        data, refused = self._validated("mcp:export", "ExportInput", {"serverIds": server_ids, "format": fmt}, on_error)
        if data is None:
            return refused
        spec = data

        async def work(s: AppServices) -> dict[str, Any]:
            from elftia_desktop.integrations.transfer import app_config_path, export_text

            result = export_text(await _records(s, spec.server_ids), spec.format)
            return result.to_json_dict() | {"text": result.text, "appPath": str(app_config_path(spec.format))}

        return self._submit("mcp:export", work, on_done, on_error)

    def export_to_file(
        self, server_ids: list[str], fmt: str, path: str, on_done: Done | None = None, on_error: Failed | None = None
    ) -> int:
        """``mcp:export-file``: write or merge into ``path`` (other servers there are kept); ``{path, replaced}``."""
        params = {"serverIds": server_ids, "format": fmt, "path": path}
        data, refused = self._validated("mcp:export-file", "ExportFileInput", params, on_error)
        if data is None:
            return refused
        spec = data

        async def work(s: AppServices) -> dict[str, Any]:
            from elftia_desktop.integrations.exporter import write_export
            from elftia_desktop.integrations.transfer import export_text

            result = export_text(await _records(s, spec.server_ids), spec.format)
            replaced = await asyncio.to_thread(write_export, result, Path(spec.path))
            return {"path": spec.path, "replaced": replaced, "warnings": result.warnings}

        return self._submit("mcp:export-file", work, on_done, on_error)

    def plan_export_into_app(
        self, server_ids: list[str], fmt: str, on_done: Done | None = None, on_error: Failed | None = None
    ) -> int:
        """``mcp:plan-export-into-app``: the app's file, the diff, the fingerprints; nothing is written."""
        params = {"serverIds": server_ids, "format": fmt}
        data, refused = self._validated("mcp:plan-export-into-app", "ExportInput", params, on_error)
        if data is None:
            return refused
        spec = data

        async def work(s: AppServices) -> dict[str, Any]:
            return await _plan(s, spec)

        return self._submit("mcp:plan-export-into-app", work, on_done, on_error)

    def export_into_app(
        self,
        server_ids: list[str],
        fmt: str,
        digest: str,
        after_digest: str,
        on_done: Done | None = None,
        on_error: Failed | None = None,
    ) -> int:
        """``mcp:export-into-app``: back the app's file up, then write what the diff showed; ``{path, backup}``."""
        params = {"serverIds": server_ids, "format": fmt, "digest": digest, "afterDigest": after_digest}
        data, refused = self._validated("mcp:export-into-app", "AppWriteInput", params, on_error)
        if data is None:
            return refused
        spec = data

        async def work(s: AppServices) -> dict[str, Any]:
            from elftia_desktop.core.errors import ConfigError
            from elftia_desktop.integrations.app_config_file import digest as fingerprint
            from elftia_desktop.integrations.transfer import write_app_config

            plan = await _plan(s, spec)
            if plan["digest"] != spec.digest or fingerprint(plan["after"]) != spec.after_digest:
                raise ConfigError(f"{plan['path']} or the servers changed since the diff was shown; nothing written.")
            return await asyncio.to_thread(write_app_config, Path(plan["path"]), plan["after"], spec.digest)

        return self._submit("mcp:export-into-app", work, on_done, on_error)

    def claude_status(self, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:claude-status``: ``{installed, path, version, help, servers}`` of the ``claude`` CLI."""

        async def work(s: AppServices) -> dict[str, Any]:
            from elftia_desktop.integrations.claude_cli import ClaudeCliError, ClaudeCliMissing

            cli = await _claude_cli()
            out: dict[str, Any] = {"installed": False, "path": cli.executable, "version": None, "help": None}
            try:
                out |= {"installed": True, "version": (await cli.detect()).version}
            except ClaudeCliMissing:
                out["help"] = CLAUDE_INSTALL_HELP
            except ClaudeCliError as exc:
                out["help"] = f"{exc}\n{CLAUDE_INSTALL_HELP}"
            try:
                out["servers"] = await cli.list_servers()
            except ClaudeCliError as exc:
                out["servers"], out["error"] = [], str(exc)
            return out

        return self._submit("mcp:claude-status", work, on_done, on_error)

    def claude_push(
        self, server_id: str, scope: str = "user", on_done: Done | None = None, on_error: Failed | None = None
    ) -> int:
        """``mcp:claude-push``: ``claude mcp add-json`` one of our servers (secrets as ``${VAR}`` placeholders)."""
        params = {"serverId": server_id, "scope": scope}
        data, refused = self._validated("mcp:claude-push", "ClaudePushInput", params, on_error)
        if data is None:
            return refused
        spec = data

        async def work(s: AppServices) -> dict[str, Any]:
            record = await asyncio.to_thread(s.catalog.get, spec.server_id)
            result = await (await _claude_cli()).add(record, None, spec.scope, with_secrets=False)
            return {"name": record.name, "scope": spec.scope} | result.to_json_dict()

        return self._submit("mcp:claude-push", work, on_done, on_error)

    def claude_sources(self, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:claude-sources``: Claude Code's config files, to preview and import ("pull")."""

        async def work(s: AppServices) -> list[dict[str, Any]]:
            from elftia_desktop.integrations.transfer import describe_config

            cli = await _claude_cli()
            return [describe_config(f) for f in await asyncio.to_thread(cli.config_files)]

        return self._submit("mcp:claude-sources", work, on_done, on_error)


def _refs(sources: list[Any]) -> list[SourceRef]:
    from elftia_desktop.integrations.transfer import SourceRef

    return [SourceRef(s.app, s.path, s.scope, s.project_path) for s in sources]


async def _records(s: AppServices, server_ids: list[str]) -> list[McpServerRecord]:
    return await asyncio.to_thread(lambda: [s.catalog.get(i) for i in server_ids])


async def _plan(s: AppServices, spec: ExportInput) -> dict[str, Any]:
    from elftia_desktop.integrations.app_config_file import digest
    from elftia_desktop.integrations.transfer import app_config_path, export_text, plan_app_write

    result = export_text(await _records(s, spec.server_ids), spec.format)
    plan = await asyncio.to_thread(plan_app_write, result, app_config_path(spec.format))
    return plan | {"afterDigest": digest(plan["after"])}


async def _claude_cli() -> ClaudeCli:
    """The CLI on the PATH servers get: the login shell's, plus the app's managed tools."""
    from elftia_desktop.core.login_env import command_search_path
    from elftia_desktop.integrations.claude_cli import ClaudeCli

    path = await command_search_path()
    return await asyncio.to_thread(ClaudeCli, None, os.environ | {"PATH": path})
