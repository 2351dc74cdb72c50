"""Turn other apps' server entries into ours: normalise, preview, then add with a conflict policy.

Each entry is normalised on its own (one bad entry never stops the rest) through the core's
``entry_to_input`` after the app-specific part is done here: Cline's legacy ``transportType``,
which transport a bare URL means in each app, ``timeout`` units, Gemini's ``excludeTools``.
Placeholders (``${env:X}``, ``${VAR}``, ``${input:id}``) are kept verbatim and reported.
Every imported record is untrusted (it never starts before the user confirms it) and has
``installSource: "unknown"``; the source app's auto-approve list is kept on the record as
``autoApprove`` and where it came from as ``importedFrom``. Secret-looking values go to the
keyring because ``ServerCatalog.add`` extracts them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ConfigDict
from pydantic.alias_generators import to_camel

from elftia_desktop.core.catalog import ConflictPolicy, ServerCatalog
from elftia_desktop.core.errors import ElftiaError
from elftia_desktop.core.models import McpServerInput, McpServerRecord, McpServerTransport
from elftia_desktop.core.server_json import auto_approve_list, entry_to_input
from elftia_desktop.core.text_rules import quoted
from elftia_desktop.integrations.app_formats import (
    CLINE_LEGACY_TRANSPORT,
    AppFormat,
    app_format,
    placeholder_kind,
    placeholders_in,
)
from elftia_desktop.integrations.detector import ConfigFile, ServerSection, is_elftia_gateway

_STR_LIST = "a list of strings"
_STR_MAP = "an object of string values"
_OBJECT = "an object"
_FIELD_TYPES: dict[str, str] = {
    "command": "a string",
    "cwd": "a string",
    "url": "a string",
    "serverUrl": "a string",
    "httpUrl": "a string",
    "type": "a string",
    "transportType": "a string",
    "args": _STR_LIST,
    "autoApprove": _STR_LIST,
    "alwaysAllow": _STR_LIST,
    "excludeTools": _STR_LIST,
    "includeTools": _STR_LIST,
    "env": _STR_MAP,
    "headers": _STR_MAP,
    "disabled": "true or false",
    "active": "true or false",
    "timeout": "a number",
    "oauth": _OBJECT,
}
_KNOWN_KEYS = {*_FIELD_TYPES, "name", "transport", "isActive", "inputs"}


class ImportedServerInput(McpServerInput):
    """An ``McpServerInput`` that carries extra record fields (``autoApprove``, ``importedFrom``)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")


@dataclass
class SourceEntry:
    """One server entry of another app's file, normalised, or the reason it cannot be."""

    name: str
    app: str
    path: str
    key_path: str
    scope: str = "user"
    project_path: str | None = None
    server: ImportedServerInput | None = None
    error: str | None = None
    placeholders: list[dict[str, str]] = field(default_factory=list)
    """``{field, placeholder, kind}`` for every ``${...}`` kept verbatim."""
    warnings: list[str] = field(default_factory=list)
    auto_approve: list[str] = field(default_factory=list)

    def runs(self) -> str:
        """What the server runs (stdio) or where it connects, for a preview line."""
        if self.server is None:
            return ""
        config = self.server.config
        if self.server.type is McpServerTransport.STDIO:
            return " ".join([config.command or "", *config.args]).strip()
        return config.url or ""


def _type_problem(key: str, value: Any) -> str | None:
    expected = _FIELD_TYPES.get(key)
    if expected is None:
        return None
    ok = {
        "a string": isinstance(value, str),
        _STR_LIST: isinstance(value, list) and all(isinstance(v, str) for v in value),
        _STR_MAP: isinstance(value, dict),
        _OBJECT: isinstance(value, dict),
        "true or false": isinstance(value, bool),
        "a number": isinstance(value, int | float) and not isinstance(value, bool),
    }[expected]
    return None if ok else f"{key}: expected {expected}, got {_describe(value)}"


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, str):
        return f"the string {quoted(value)}"[:60]
    names = {dict: "an object", list: "a list", type(None): "null", int: "a number", float: "a number"}
    if isinstance(value, list):
        return "a list with a non-string item"
    return names.get(type(value), type(value).__name__)


def _string_map(key: str, values: dict[str, Any], warnings: list[str]) -> dict[str, str]:
    """Env/header values as strings: numbers and booleans converted (with a warning), others refused."""
    out = {}
    for name, value in values.items():
        if isinstance(value, str):
            out[name] = value
        elif isinstance(value, bool | int | float):
            text = str(value).lower() if isinstance(value, bool) else str(value)
            warnings.append(f"{key}.{name}: the number/boolean {value!r} was taken as the string {quoted(text)}")
            out[name] = text
        else:
            raise ValueError(f"{key}.{name}: expected a string, got {_describe(value)}")
    return out


def _prepare(fmt: AppFormat, entry: dict[str, Any], warnings: list[str]) -> dict[str, Any]:
    """The app-specific part: the entry rewritten in the shape ``entry_to_input`` reads."""
    problems = [p for key, value in entry.items() if (p := _type_problem(key, value))]
    if problems:
        raise ValueError("; ".join(problems))
    prepared = dict(entry)
    for key in ("env", "headers"):
        if key in prepared:
            prepared[key] = _string_map(key, prepared[key], warnings)
    legacy = prepared.pop("transportType", None)
    if legacy is not None and "type" not in prepared:
        if legacy not in CLINE_LEGACY_TRANSPORT:
            raise ValueError(f"transportType: {quoted(legacy)} is not a transport (expected stdio, sse or http)")
        prepared["type"] = CLINE_LEGACY_TRANSPORT[legacy]
    url_key = next((k for k in (*fmt.url_keys, "url", "serverUrl", "httpUrl") if prepared.get(k)), None)
    if url_key is not None:
        prepared["url"] = url = prepared[url_key]
        if placeholders_in(url) and not url.startswith(("http://", "https://")):
            raise ValueError(
                f"{url_key}: {quoted(url)} starts with a placeholder; Elftia needs an absolute http(s) URL here, "
                "so write the real address before importing"
            )
        if not prepared.get("type") and not prepared.get("transport") and not prepared.get("command"):
            prepared["type"] = fmt.untyped_url.get(url_key, McpServerTransport.HTTP).value
    timeout = prepared.get("timeout")
    if timeout is not None:
        prepared["timeout"] = {"call": timeout * (fmt.timeout_unit or 1.0)}
    return prepared


def normalise_entry(fmt: AppFormat, name: str, entry: Any, section: ServerSection) -> SourceEntry:
    """One entry to a ``SourceEntry`` with an untrusted ``ImportedServerInput``, or an error naming the field."""
    where = f"{section.key_path}.{name}"
    out = SourceEntry(name, fmt.id, "", section.key_path, section.scope, section.project_path)
    if not isinstance(entry, dict):
        out.error = f'{where}: expected an object with "command" or "url", got {_describe(entry)}'
        return out
    try:
        prepared = _prepare(fmt, entry, out.warnings)
        base = entry_to_input(name, prepared)
    except ValueError as exc:
        out.error = f"{where}: {exc}"
        return out
    out.auto_approve = auto_approve_list(entry)
    data = base.model_dump(by_alias=True) | {
        "isTrusted": False,
        "installSource": "unknown",
        "scope": section.scope,
        "projectPath": section.project_path,
        "importedFrom": {"app": fmt.id, "keyPath": where},
    }
    if isinstance(entry.get("excludeTools"), list):
        data["disabledTools"] = list(entry["excludeTools"])
    if out.auto_approve:
        data["autoApprove"] = out.auto_approve
    out.server = ImportedServerInput.model_validate(data)
    _note(out, entry, fmt)
    return out


def _note(out: SourceEntry, entry: dict[str, Any], fmt: AppFormat) -> None:
    """Collect placeholders and the warnings a user should see before importing."""
    assert out.server is not None
    config = out.server.config
    fields: list[tuple[str, str | None]] = [("command", config.command), ("cwd", config.cwd), ("url", config.url)]
    fields += [(f"args[{i}]", a) for i, a in enumerate(config.args)]
    fields += [(f"env.{k}", v) for k, v in config.env.items()]
    fields += [(f"headers.{k}", v) for k, v in config.headers.items()]
    for where, value in fields:
        for placeholder in placeholders_in(value or ""):
            out.placeholders.append({"field": where, "placeholder": placeholder, "kind": placeholder_kind(placeholder)})
    if out.auto_approve:
        out.warnings.append(
            f"{fmt.label} auto-approved these tools: {', '.join(out.auto_approve)}; kept as 'autoApprove' on the "
            "record, but Elftia asks before each call until you change that"
        )
    if entry.get("trust") is True:
        out.warnings.append(f"{fmt.label} trusted this server; Elftia still asks you to confirm what it runs")
    unknown = sorted(set(entry) - _KNOWN_KEYS)
    if unknown:
        out.warnings.append(f"kept fields Elftia does not use: {', '.join(unknown)}")
    if out.placeholders:
        shown = ", ".join(dict.fromkeys(p["placeholder"] for p in out.placeholders))
        out.warnings.append(f"placeholders kept as written (they are not filled in by Elftia yet): {shown}")


def load_entries(config: ConfigFile) -> list[SourceEntry]:
    """Every entry of a readable config file, normalised (an unreadable file gives none)."""
    fmt = app_format(config.location.app)
    entries = []
    input_ids = _input_ids(config.data)
    for section in config.sections:
        for name, entry in section.entries.items():
            if is_elftia_gateway(entry):
                continue  # Elftia's own gateway entry points back at Elftia: never offered
            item = normalise_entry(fmt, name, entry, section)
            item.path = str(config.location.path)
            for placeholder in item.placeholders:
                if placeholder["kind"] == "input" and placeholder["placeholder"][8:-1] not in input_ids:
                    item.warnings.append(f"{placeholder['placeholder']} is not declared in the file's 'inputs'")
            entries.append(item)
    return entries


def _input_ids(data: Any) -> set[str]:
    inputs = data.get("inputs") if isinstance(data, dict) else None
    return {str(i.get("id")) for i in inputs if isinstance(i, dict)} if isinstance(inputs, list) else set()


@dataclass
class PreviewItem:
    """One server that would be added, and the existing name it clashes with, if any."""

    entry: SourceEntry
    conflict: str | None = None

    def to_json_dict(self) -> dict[str, Any]:
        """The preview row as JSON (for ``--json`` and the UI)."""
        entry = self.entry
        out: dict[str, Any] = {
            "name": entry.name,
            "app": entry.app,
            "source": entry.path,
            "keyPath": entry.key_path,
            "scope": entry.scope,
            "transport": entry.server.type.value if entry.server else None,
            "runs": entry.runs(),
            "conflict": self.conflict,
            "placeholders": entry.placeholders,
            "autoApprove": entry.auto_approve,
            "warnings": entry.warnings,
        }
        if entry.project_path:
            out["projectPath"] = entry.project_path
        if entry.error:
            out["error"] = entry.error
        return out


@dataclass
class ImportPreview:
    """What an import would add, per server, and the files that could not be read."""

    items: list[PreviewItem] = field(default_factory=list)
    file_errors: list[dict[str, Any]] = field(default_factory=list)

    def to_json_dict(self) -> dict[str, Any]:
        """The whole preview as JSON."""
        return {"servers": [i.to_json_dict() for i in self.items], "fileErrors": self.file_errors}


def preview_import(
    files: Iterable[ConfigFile], existing: Iterable[McpServerRecord], names: Iterable[str] | None = None
) -> ImportPreview:
    """What importing ``files`` would do next to ``existing`` records (``names``: only these servers)."""
    wanted = None if names is None else {n.lower() for n in names}
    taken = {r.name.lower(): r.name for r in existing}
    preview = ImportPreview()
    for config in files:
        if config.error:
            preview.file_errors.append(
                {"path": str(config.location.path), "error": config.error, "line": config.line, "column": config.column}
            )
            continue
        for entry in load_entries(config):
            if wanted is not None and entry.name.lower() not in wanted:
                continue
            preview.items.append(PreviewItem(entry, taken.get(entry.name.lower())))
            if entry.server is not None:
                taken.setdefault(entry.name.lower(), entry.name)
    return preview


@dataclass
class ImportOutcome:
    """What happened to one server: added, renamed, replaced, skipped or failed."""

    name: str
    status: str
    server_name: str | None = None
    server_id: str | None = None
    error: str | None = None

    def to_json_dict(self) -> dict[str, Any]:
        """The outcome as JSON."""
        out = {"name": self.name, "status": self.status, "serverName": self.server_name, "id": self.server_id}
        return out | ({"error": self.error} if self.error else {})


def apply_import(
    catalog: ServerCatalog,
    preview: ImportPreview,
    on_conflict: ConflictPolicy | Mapping[str, ConflictPolicy] = "skip",
    trust: bool = False,
) -> list[ImportOutcome]:
    """Add the previewed servers; ``on_conflict`` is one policy or one per (source) name."""
    outcomes = []
    for item in preview.items:
        entry = item.entry
        if entry.server is None:
            outcomes.append(ImportOutcome(entry.name, "failed", error=entry.error))
            continue
        policy = on_conflict if isinstance(on_conflict, str) else on_conflict.get(entry.name, "skip")
        server = entry.server.model_copy(deep=True)
        server.is_trusted = trust
        try:
            record = catalog.add(server, on_conflict=policy)
        except ElftiaError as exc:
            outcomes.append(ImportOutcome(entry.name, "failed", error=f"{entry.name}: {exc}"))
            continue
        if record is None:
            outcomes.append(ImportOutcome(entry.name, "skipped", error="the name is taken"))
            continue
        status = "added"
        if record.name != entry.name:
            status = "renamed"
        elif item.conflict is not None:
            status = "replaced"
        outcomes.append(ImportOutcome(entry.name, status, record.name, record.id))
    return outcomes
