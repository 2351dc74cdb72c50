"""Integration channels: other apps' configs (detect, preview, import, export) and the ``claude`` CLI.

File work (reading other apps' files, writing the catalog and the keyring) runs in worker
threads; the ``claude`` CLI runs as an asyncio subprocess. Nothing here blocks the loop.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from elftia_desktop.bridge.pending import Pending
from elftia_desktop.bridge.plumbing import Route
from elftia_desktop.bridge.results import (
    AppWriteResult,
    ClaudePushResult,
    ClaudeStatus,
    DetectedConfig,
    ExportFileResult,
    ExportPlan,
    ExportView,
    FileError,
    ImportOutcome,
    ImportPreview,
    ImportResult,
    ImportRow,
    SecretPlaceholder,
)

if TYPE_CHECKING:
    from elftia_desktop.bridge.channels import (
        AppWriteInput,
        ClaudePushInput,
        ExportFileInput,
        ExportInput,
        ImportInput,
        ImportPreviewInput,
    )
    from elftia_desktop.bridge.services import AppServices
    from elftia_desktop.integrations.claude_cli import ClaudeCli
    from elftia_desktop.integrations.detector import ConfigFile
    from elftia_desktop.integrations.transfer import SourceRef

CLAUDE_INSTALL_HELP = (
    "The claude CLI (Claude Code) is not installed. It needs Node.js 18 or newer; then run\n"
    "  npm install -g @anthropic-ai/claude-code\n"
    "and press Check again. More: https://docs.anthropic.com/en/docs/claude-code"
)


class IntegrationRoute(Route):
    """``mcp:detect-configs``, ``mcp:preview-import``, ``mcp:import``, ``mcp:export``, ``mcp:export-file``,
    ``mcp:plan-export-into-app``, ``mcp:export-into-app``, ``mcp:claude-status``, ``mcp:claude-push``,
    ``mcp:claude-sources``."""

    def detect(self) -> Pending[list[DetectedConfig]]:
        """``mcp:detect-configs``: other apps' config files on this machine, with server counts or errors."""

        async def work(_s: AppServices) -> list[DetectedConfig]:
            """``mcp:detect-configs`` on the service loop."""
            from elftia_desktop.integrations.detector import Environment, detect_async

            found = await detect_async(Environment.current(), [Path.cwd()])
            return [_detected(f) for f in found]

        return self._core.submit("mcp:detect-configs", work)

    def preview_import(self, sources: Sequence[DetectedConfig]) -> Pending[ImportPreview]:
        """``mcp:preview-import``: ``{rows, fileErrors}`` for the files (nothing is written)."""
        from elftia_desktop.bridge.channels import ImportPreviewInput

        async def work(s: AppServices, data: ImportPreviewInput) -> ImportPreview:
            """``mcp:preview-import`` on the service loop."""
            from elftia_desktop.integrations.transfer import preview_rows, preview_sources

            refs = _refs(data.sources)
            preview = await asyncio.to_thread(lambda: preview_sources(refs, s.catalog.all()))
            rows = tuple(_import_row(row) for row in preview_rows(preview))
            return ImportPreview(rows, _file_errors(preview.file_errors))

        return self._core.call("mcp:preview-import", ImportPreviewInput, {"sources": _source_refs(sources)}, work)

    def import_servers(self, sources: Sequence[DetectedConfig], choices: Mapping[str, str]) -> Pending[ImportOutcome]:
        """``mcp:import``: import the chosen rows, untrusted, secrets to the keyring; ``{results, fileErrors}``."""
        from elftia_desktop.bridge.channels import ImportInput

        async def work(s: AppServices, data: ImportInput) -> ImportOutcome:
            """``mcp:import`` on the service loop."""
            from elftia_desktop.integrations.transfer import import_rows

            refs, picked = _refs(data.sources), dict(data.choices)
            outcomes, preview = await asyncio.to_thread(import_rows, s.catalog, refs, picked)
            if any(o.server_id for o in outcomes):
                s.mcp.notify_servers_changed()
            results = tuple(ImportResult(o.name, o.status, o.server_name, o.error) for o in outcomes)
            return ImportOutcome(results, _file_errors(preview.file_errors), s.catalog.vault.warning)

        params = {"sources": _source_refs(sources), "choices": dict(choices)}
        return self._core.call("mcp:import", ImportInput, params, work)

    def export(self, server_ids: Sequence[str], fmt: str) -> Pending[ExportView]:
        """``mcp:export``: the file's text, where the app reads it, placeholders, warnings (nothing is written)."""
        from elftia_desktop.bridge.channels import ExportInput

        async def work(s: AppServices, spec: ExportInput) -> ExportView:
            """``mcp:export`` on the service loop."""
            from elftia_desktop.application.integrations import records
            from elftia_desktop.integrations.transfer import app_config_path, export_text

            result = export_text(await records(s.catalog, spec.server_ids), spec.format)
            return ExportView(
                result.format,
                result.text,
                str(app_config_path(spec.format)),
                _placeholders(result.placeholders),
                tuple(result.warnings),
                tuple(result.skipped),
            )

        return self._core.call("mcp:export", ExportInput, {"serverIds": list(server_ids), "format": fmt}, work)

    def export_to_file(self, server_ids: Sequence[str], fmt: str, path: str) -> Pending[ExportFileResult]:
        """``mcp:export-file``: write or merge into ``path`` (other servers there are kept)."""
        from elftia_desktop.bridge.channels import ExportFileInput

        async def work(s: AppServices, spec: ExportFileInput) -> ExportFileResult:
            """``mcp:export-file`` on the service loop."""
            from elftia_desktop.application.integrations import records
            from elftia_desktop.integrations.exporter import write_export
            from elftia_desktop.integrations.transfer import export_text

            result = export_text(await records(s.catalog, spec.server_ids), spec.format)
            replaced = await asyncio.to_thread(write_export, result, Path(spec.path))
            return ExportFileResult(spec.path, list(replaced), list(result.warnings))

        params = {"serverIds": list(server_ids), "format": fmt, "path": path}
        return self._core.call("mcp:export-file", ExportFileInput, params, work)

    def plan_export_into_app(self, server_ids: Sequence[str], fmt: str) -> Pending[ExportPlan]:
        """``mcp:plan-export-into-app``: the app's file, the diff, the fingerprints; nothing is written."""
        from elftia_desktop.bridge.channels import ExportInput

        async def work(s: AppServices, spec: ExportInput) -> ExportPlan:
            """``mcp:plan-export-into-app`` on the service loop."""
            from elftia_desktop.application.integrations import plan_export_into_app

            plan = await plan_export_into_app(s.catalog, spec.server_ids, spec.format)
            return ExportPlan(
                path=plan["path"],
                exists=plan["exists"],
                diff=plan["diff"],
                replaced=tuple(plan["replaced"]),
                digest=plan["digest"],
                after_digest=plan["afterDigest"],
                warnings=tuple(plan["warnings"]),
                placeholders=_placeholders(plan["placeholders"]),
            )

        return self._core.call(
            "mcp:plan-export-into-app", ExportInput, {"serverIds": list(server_ids), "format": fmt}, work
        )

    def export_into_app(
        self, server_ids: Sequence[str], fmt: str, digest: str, after_digest: str
    ) -> Pending[AppWriteResult]:
        """``mcp:export-into-app``: back the app's file up, then write what the diff showed."""
        from elftia_desktop.bridge.channels import AppWriteInput

        async def work(s: AppServices, spec: AppWriteInput) -> AppWriteResult:
            """``mcp:export-into-app`` on the service loop."""
            from elftia_desktop.application.integrations import export_into_app

            done = await export_into_app(s.catalog, spec.server_ids, spec.format, spec.digest, spec.after_digest)
            return AppWriteResult(done["path"], done["backup"])

        params = {"serverIds": list(server_ids), "format": fmt, "digest": digest, "afterDigest": after_digest}
        return self._core.call("mcp:export-into-app", AppWriteInput, params, work)

    def claude_status(self) -> Pending[ClaudeStatus]:
        """``mcp:claude-status``: the ``claude`` CLI (installed, path, version, install help) and its servers."""
        return self._core.submit("mcp:claude-status", _claude_status)

    def claude_push(self, server_id: str, scope: str = "user") -> Pending[ClaudePushResult]:
        """``mcp:claude-push``: ``claude mcp add-json`` one of our servers (secrets as ``${VAR}`` placeholders)."""
        from elftia_desktop.bridge.channels import ClaudePushInput

        async def work(s: AppServices, spec: ClaudePushInput) -> ClaudePushResult:
            """``mcp:claude-push`` on the service loop."""
            record = await asyncio.to_thread(s.catalog.get, spec.server_id)
            result = await (await _claude_cli()).add(record, None, spec.scope, with_secrets=False)
            return ClaudePushResult(record.name, spec.scope, _placeholders(result.placeholders), tuple(result.warnings))

        return self._core.call("mcp:claude-push", ClaudePushInput, {"serverId": server_id, "scope": scope}, work)

    def claude_sources(self) -> Pending[list[DetectedConfig]]:
        """``mcp:claude-sources``: Claude Code's config files, to preview and import ("pull")."""

        async def work(_s: AppServices) -> list[DetectedConfig]:
            """``mcp:claude-sources`` on the service loop."""
            cli = await _claude_cli()
            return [_detected(f) for f in await asyncio.to_thread(cli.config_files)]

        return self._core.submit("mcp:claude-sources", work)


async def _claude_status(_s: AppServices) -> ClaudeStatus:
    from elftia_desktop.integrations.claude_cli import ClaudeCliError, ClaudeCliMissing, ClaudeServer

    cli = await _claude_cli()
    installed, version, help_text, error = False, None, None, None
    try:
        installed, version = True, (await cli.detect()).version
    except ClaudeCliMissing:
        help_text = CLAUDE_INSTALL_HELP
    except ClaudeCliError as exc:
        help_text = f"{exc}\n{CLAUDE_INSTALL_HELP}"
    servers: list[ClaudeServer] = []
    try:
        servers = await cli.list_servers()
    except ClaudeCliError as exc:
        error = str(exc)
    return ClaudeStatus(installed, cli.executable, version, help_text, servers, error)


def _detected(config: ConfigFile) -> DetectedConfig:
    """A found file as the Import page lists it."""
    from elftia_desktop.integrations.app_formats import app_format

    where, fmt = config.location, app_format(config.location.app)
    error = FileError(str(where.path), config.error, config.line, config.column) if config.error else None
    return DetectedConfig(
        fmt.id,
        fmt.label,
        str(where.path),
        where.scope,
        where.project_path,
        len(config.server_names),
        tuple(config.elftia_entries),
        error,
    )


def _source_refs(sources: Sequence[DetectedConfig]) -> list[dict[str, str | None]]:
    """The files as ``SourceRefInput`` params."""
    return [{"app": s.app, "path": s.path, "scope": s.scope, "projectPath": s.project_path} for s in sources]


def _refs(sources: list[Any]) -> list[SourceRef]:
    from elftia_desktop.integrations.transfer import SourceRef

    return [SourceRef(s.app, s.path, s.scope, s.project_path) for s in sources]


async def _claude_cli() -> ClaudeCli:
    """The CLI on the PATH servers get: the login shell's, plus the app's managed tools."""
    from elftia_desktop.core.login_env import command_search_path
    from elftia_desktop.integrations.claude_cli import ClaudeCli

    path = await command_search_path()
    return await asyncio.to_thread(ClaudeCli, None, os.environ | {"PATH": path})


def _file_errors(errors: list[dict[str, Any]]) -> tuple[FileError, ...]:
    return tuple(FileError(str(e["path"]), str(e["error"]), e.get("line"), e.get("column")) for e in errors)


def _import_row(row: dict[str, Any]) -> ImportRow:
    return ImportRow(
        key=row["key"],
        name=row["name"],
        app=row["app"],
        source=row["source"],
        transport=row.get("transport"),
        runs=row["runs"],
        conflict=row.get("conflict"),
        warnings=tuple(row["warnings"]),
        env=tuple(row["env"].items()),
        headers=tuple(row["headers"].items()),
        secrets=tuple(row["secrets"]),
        error=row.get("error"),
    )


def _placeholders(rows: list[dict[str, str]]) -> tuple[SecretPlaceholder, ...]:
    """The exporter's ``{server, field, placeholder}`` rows, typed."""
    return tuple(SecretPlaceholder(r["server"], r["field"], r["placeholder"]) for r in rows)
