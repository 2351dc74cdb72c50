"""What the Import and export page does, as plain functions over the detector, importer and exporter.

* Sources are named by :class:`SourceRef` (app, path, scope, project) so a preview and the
  import that follows read the same files; each preview row has a stable ``key``.
* Preview rows show what a server runs and which values are secrets (masked; they go to the
  keyring on import), never a secret's value.
* Writing into another app's config is planned first (:func:`plan_app_write`: the file now,
  the file after, a unified diff) and only then done (:func:`write_app_config`), after a
  timestamped backup copy, and only when the file is still the one the diff was made from.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from elftia_desktop.core.catalog import ConflictPolicy, ServerCatalog
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.core.secrets import is_placeholder, is_secret_ref, looks_secret
from elftia_desktop.integrations.app_config_file import digest, read_existing, user_config_path, write_with_backup
from elftia_desktop.integrations.app_formats import app_format
from elftia_desktop.integrations.detector import (
    ConfigFile,
    ConfigLocation,
    Environment,
    read_config,
)
from elftia_desktop.integrations.exporter import ExportResult, export_servers, merge_into
from elftia_desktop.integrations.importer import ImportOutcome, ImportPreview, PreviewItem, apply_import, preview_import

SECRET_SHOWN = "•••••• (secret, goes to the keyring)"
"""How a secret value of another app's file is shown in a preview."""


@dataclass(frozen=True)
class SourceRef:
    """One config file of another app, as the page names it."""

    app: str
    path: str
    scope: str = "user"
    project_path: str | None = None

    @classmethod
    def of(cls, config: ConfigFile) -> SourceRef:
        """The reference of a detected file."""
        loc = config.location
        return cls(loc.app, str(loc.path), loc.scope, loc.project_path)

    def read(self) -> ConfigFile:
        """The file now; a missing file is reported as an error, not skipped."""
        location = ConfigLocation(app_format(self.app).id, Path(self.path), self.scope, self.project_path)
        return read_config(location) or ConfigFile(location, error=f"{self.path}: the file is gone")


def row_key(item: PreviewItem) -> str:
    """A stable id of a preview row: file, place in the file, name."""
    return f"{item.entry.path}#{item.entry.key_path}.{item.entry.name}"


def _shown(name: str, value: str) -> tuple[str, bool]:
    """A value as the preview shows it, and whether it is a secret."""
    if is_secret_ref(value) or (value and not is_placeholder(value) and looks_secret(name)):
        return SECRET_SHOWN, True
    return value, False


def preview_rows(preview: ImportPreview) -> list[dict[str, Any]]:
    """Every preview row as JSON with ``key``, masked ``env``/``headers`` and ``secrets`` (their names)."""
    rows = []
    for item in preview.items:
        row = item.to_json_dict() | {"key": row_key(item), "env": {}, "headers": {}, "secrets": []}
        server = item.entry.server
        if server is not None:
            for kind, values in (("env", server.config.env), ("headers", server.config.headers)):
                for name, value in values.items():
                    row[kind][name], secret = _shown(name, value)
                    if secret:
                        row["secrets"].append(name)
        rows.append(row)
    return rows


def preview_sources(refs: Iterable[SourceRef], existing: Iterable[McpServerRecord]) -> ImportPreview:
    """What importing the files would do next to ``existing`` (broken files go to ``file_errors``)."""
    return preview_import([ref.read() for ref in refs], existing)


def import_rows(
    catalog: ServerCatalog, refs: Iterable[SourceRef], choices: Mapping[str, ConflictPolicy]
) -> tuple[list[ImportOutcome], ImportPreview]:
    """Import the rows named in ``choices`` (row key -> rename/skip/replace); they arrive untrusted."""
    preview = preview_sources(refs, catalog.all())
    outcomes: list[ImportOutcome] = []
    for item in preview.items:
        policy = choices.get(row_key(item))
        if policy is not None:
            outcomes += apply_import(catalog, ImportPreview([item]), policy, trust=False)
    return outcomes, preview


def export_text(records: Iterable[McpServerRecord], fmt_id: str) -> ExportResult:
    """Our servers in another app's format; secrets are written as placeholders, never as values."""
    return export_servers(records, fmt_id, vault=None, with_secrets=False)


def app_config_path(fmt_id: str, machine: Environment | None = None) -> Path:
    """The user config file of the app that reads ``fmt_id`` (``~/.cursor/mcp.json`` ...)."""
    return user_config_path(app_format(fmt_id).id, machine)


def plan_app_write(result: ExportResult, path: Path) -> dict[str, Any]:
    """The file at ``path`` now and after merging ``result`` in, the unified diff, the names replaced."""
    from elftia_desktop.integrations.detector import parse_config_text
    from elftia_desktop.integrations.jsonc import strip_jsonc

    before = read_existing(path)
    warnings = list(result.warnings)
    if before is not None and app_format(result.format).jsonc and strip_jsonc(before) != before:
        warnings.append(f"{path.name} has comments or trailing commas; they are not kept (see the diff)")
    existing = parse_config_text(before, app_format(result.format), str(path)) if before is not None else {}
    merged, replaced = merge_into(existing, result, str(path))
    after = json.dumps(merged, indent=2, ensure_ascii=False) + "\n"
    diff = difflib.unified_diff(
        (before or "").splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"{path} (now)" if before is not None else "(no file yet)",
        tofile=f"{path} (after)",
    )
    return {
        "path": str(path),
        "exists": before is not None,
        "after": after,
        "diff": "".join(diff),
        "replaced": replaced,
        "digest": digest(before),
        "warnings": warnings,
        "placeholders": result.placeholders,
    }


def write_app_config(path: Path, after: str, expected: str) -> dict[str, Any]:
    """Back the file up, then write ``after`` atomically; refused when the file changed since the plan."""
    backup = write_with_backup(path, after, expected)
    return {"path": str(path), "backup": str(backup) if backup else None}
