"""Write a selection of our servers in another app's format.

Formats: Claude Desktop (``claude_desktop_config.json``, stdio only), Claude Code (``.mcp.json``,
also what ``claude --mcp-config FILE`` reads), Cursor (``mcp.json``) and VS Code (``mcp.json``
with ``servers`` and ``inputs``). A secret value (``${secret:NAME}`` on our record) is written as
a placeholder the target app fills in — ``${NAME}``, ``${env:NAME}`` or, for VS Code, an
``${input:id}`` prompt declared in ``inputs`` — unless ``with_secrets`` asks for the real values
(read from the vault). What a format cannot hold is left out and named in ``warnings``.
"""

from __future__ import annotations

import json
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from elftia_desktop.core.atomic_file import atomic_write_text
from elftia_desktop.core.errors import JsonInputError
from elftia_desktop.core.models import McpServerRecord, McpServerTransport
from elftia_desktop.core.secret_detect import secret_kind
from elftia_desktop.core.secrets import SECRET_REF_INSIDE, SecretVault, is_secret_ref
from elftia_desktop.core.text_rules import quoted
from elftia_desktop.integrations.app_formats import AppFormat, app_format
from elftia_desktop.integrations.detector import parse_config_text, read_config_text


@dataclass
class ExportResult:
    """The exported config, the placeholders written in place of secrets, and what was left out."""

    format: str
    data: dict[str, Any]
    placeholders: list[dict[str, str]] = field(default_factory=list)
    """``{server, field, placeholder}`` for each secret written as a placeholder."""
    warnings: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """Servers the format cannot hold."""
    with_secrets: bool = False

    @property
    def text(self) -> str:
        """The file's text."""
        return json.dumps(self.data, indent=2, ensure_ascii=False) + "\n"

    def to_json_dict(self) -> dict[str, Any]:
        """A summary for ``--json``."""
        return {
            "format": self.format,
            "config": self.data,
            "placeholders": self.placeholders,
            "warnings": self.warnings,
            "skipped": self.skipped,
        }


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").upper() or "VALUE"


class _Writer:
    """Builds one format's entries; collects placeholders, inputs and warnings."""

    def __init__(self, fmt: AppFormat, vault: SecretVault | None, with_secrets: bool) -> None:
        if with_secrets and vault is None:
            raise ValueError("with_secrets needs the secret vault")
        self.fmt = fmt
        self.vault = vault
        self.with_secrets = with_secrets
        self.result = ExportResult(fmt.id, {fmt.root_key: {}}, with_secrets=with_secrets)
        self.inputs: list[dict[str, Any]] = []

    def secret(self, record: McpServerRecord, kind: str, key: str) -> str:
        """The placeholder that stands for one secret, declaring a VS Code input when needed."""
        variable = key if kind == "env" else f"{_slug(record.name)}_{_slug(key)}"
        if self.fmt.id == "vscode":
            input_id = f"{record.name}-{key}".lower().replace(" ", "-")
            what = {"env": "environment variable", "url": "URL credential"}.get(kind, "header")
            self.inputs.append(
                {
                    "type": "promptString",
                    "id": input_id,
                    "description": f"{key} ({what}) for {record.name}",
                    "password": True,
                }
            )
            placeholder = f"${{input:{input_id}}}"
        else:
            placeholder = self.fmt.env_placeholder.format(name=variable)
        field_name = f"{ {'env': 'env', 'url': 'url'}.get(kind, 'headers') }.{key}"
        self.result.placeholders.append({"server": record.name, "field": field_name, "placeholder": placeholder})
        return placeholder

    def values(self, record: McpServerRecord, kind: str, raw: dict[str, str], real: dict[str, str]) -> dict[str, str]:
        """Env or header values with secrets resolved or replaced by placeholders."""
        if self.with_secrets:
            return dict(real)
        return {k: self.secret(record, kind, k) if is_secret_ref(v) or secret_kind(v) else v for k, v in raw.items()}

    def url(self, record: McpServerRecord) -> str | None:
        """The URL with its stored credentials resolved (``with_secrets``) or as placeholders."""
        if self.with_secrets and self.vault is not None:
            return self.vault.resolve_url(record).config.url
        return SECRET_REF_INSIDE.sub(lambda m: self.secret(record, "url", m.group(1)), record.config.url or "")

    def entry(self, record: McpServerRecord) -> dict[str, Any] | None:
        """The target app's entry for one record, or None when the format cannot hold it."""
        fmt, config = self.fmt, record.config
        if record.type is not McpServerTransport.STDIO and not fmt.remote_ok:
            self.result.skipped.append(record.name)
            self.result.warnings.append(
                f"{record.name}: {fmt.label}'s config file runs only stdio servers; add this "
                f"{record.type.value} server ({config.url}) as a connector in the app instead"
            )
            return None
        env, headers = self.vault.resolve(record) if self.with_secrets and self.vault else ({}, {})
        out: dict[str, Any] = {}
        type_name = fmt.type_names.get(record.type)
        if type_name:
            out["type"] = type_name
        if record.type is McpServerTransport.STDIO:
            out["command"] = config.command
            out["args"] = list(config.args)
            if config.env:
                out["env"] = self.values(record, "env", config.env, env)
            if config.cwd:
                self._cwd(record, out)
        else:
            out["url"] = self.url(record)
            if config.headers:
                out["headers"] = self.values(record, "header", config.headers, headers)
        self._rest(record, out)
        return out

    def _cwd(self, record: McpServerRecord, out: dict[str, Any]) -> None:
        if self.fmt.supports_cwd:
            out["cwd"] = record.config.cwd
        else:
            self.result.warnings.append(
                f"{record.name}: {self.fmt.label} has no working-folder setting; "
                f"cwd {quoted(record.config.cwd)} left out"
            )

    def _rest(self, record: McpServerRecord, out: dict[str, Any]) -> None:
        call = record.config.timeout.call if record.config.timeout else None
        if call is not None and self.fmt.timeout_unit:
            out["timeout"] = round(call / self.fmt.timeout_unit)
        elif call is not None:
            self.result.warnings.append(f"{record.name}: {self.fmt.label} has no timeout setting; {call:g} s left out")
        if not record.is_active:
            self.result.warnings.append(f"{record.name}: disabled here, but {self.fmt.label} has no off switch")
        if record.config.oauth is not None:
            self.result.warnings.append(
                f"{record.name}: its OAuth sign-in is not exported (tokens never leave the keyring); "
                f"sign in again in {self.fmt.label}"
            )


def export_servers(
    records: Iterable[McpServerRecord],
    fmt_id: str,
    vault: SecretVault | None = None,
    with_secrets: bool = False,
) -> ExportResult:
    """Our ``records`` in the format ``fmt_id``; ``KeyError``/``ValueError`` for an unknown format."""
    fmt = app_format(fmt_id)
    if not fmt.exportable:
        raise ValueError(f"cannot export to {fmt.label}: choose claude-desktop, claude-code, cursor or vscode")
    writer = _Writer(fmt, vault, with_secrets)
    servers = writer.result.data[fmt.root_key]
    for record in records:
        entry = writer.entry(record)
        if entry is not None:
            servers[record.name] = entry
    if fmt.id == "vscode":
        writer.result.data["inputs"] = writer.inputs
    return writer.result


def merge_into(existing: Any, result: ExportResult, where: str) -> tuple[dict[str, Any], list[str]]:
    """``existing`` file data with the exported servers added; returns it and the names replaced."""
    fmt = app_format(result.format)
    if not isinstance(existing, dict):
        raise JsonInputError(f"{where}: expected a JSON object at the top")
    merged = dict(existing)
    servers = merged.get(fmt.root_key) or {}
    if not isinstance(servers, dict):
        raise JsonInputError(f"{where}: {quoted(fmt.root_key)} must be an object of name: server entries")
    new = result.data[fmt.root_key]
    replaced = [name for name in new if name in servers]
    merged[fmt.root_key] = {**servers, **new}
    if "inputs" in result.data:
        old_inputs = [i for i in merged.get("inputs") or [] if isinstance(i, dict)]
        ids = {i["id"] for i in result.data["inputs"]}
        merged["inputs"] = [i for i in old_inputs if i.get("id") not in ids] + result.data["inputs"]
    return merged, replaced


def write_export(result: ExportResult, path: Path) -> list[str]:
    """Write (or merge into) the file at ``path`` atomically; returns the server names replaced.

    Other keys and servers of an existing file are kept. A file with real secret values is
    readable only by the user (0600).
    """
    data: dict[str, Any] = result.data
    replaced: list[str] = []
    path = path.resolve() if path.is_symlink() else path  # a dotfiles link stays a link: its target is written
    if path.exists():
        existing = parse_config_text(read_config_text(path), app_format(result.format), str(path))
        data, replaced = merge_into(existing, result, str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else 0o644  # an existing file keeps its own
    atomic_write_text(path, text, mode=mode & 0o600 if result.with_secrets else mode, keep_backup=path.exists())
    return replaced
