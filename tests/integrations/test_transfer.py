"""Issue 10: the page operations of ``integrations/transfer.py`` on real files in a temporary home."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.errors import ConfigError
from elftia_desktop.core.models import McpServerInput
from elftia_desktop.integrations.transfer import (
    SECRET_SHOWN,
    SourceRef,
    digest,
    export_text,
    import_rows,
    plan_app_write,
    preview_rows,
    preview_sources,
    write_app_config,
)

CURSOR = {
    "mcpServers": {
        "search": {"command": "npx", "args": ["-y", "search-mcp"], "env": {"SEARCH_API_KEY": "sk-9", "REGION": "eu"}},
        "docs": {"url": "https://docs.example.com/mcp", "headers": {"Authorization": "Bearer abc"}},
    }
}


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_preview_masks_secrets_and_names_broken_files(tmp_path: Path, catalog: ServerCatalog) -> None:
    good = _write(tmp_path / "cursor.json", json.dumps(CURSOR))
    broken = _write(tmp_path / "broken.json", '{"mcpServers": {"a": {"command": "x"},}}')
    gone = tmp_path / "gone.json"
    refs = [SourceRef("cursor", str(p)) for p in (good, broken, gone)]
    preview = preview_sources(refs, catalog.all())
    rows = {r["name"]: r for r in preview_rows(preview)}
    assert rows["search"]["env"] == {"SEARCH_API_KEY": SECRET_SHOWN, "REGION": "eu"}
    assert rows["search"]["secrets"] == ["SEARCH_API_KEY"] and rows["search"]["runs"] == "npx -y search-mcp"
    assert rows["docs"]["headers"] == {"Authorization": SECRET_SHOWN}
    assert "sk-9" not in json.dumps(rows) and "Bearer abc" not in json.dumps(rows)
    errors = {e["path"]: e for e in preview.file_errors}
    assert errors[str(broken)]["line"] == 1 and errors[str(broken)]["column"] == 39
    assert "the file is gone" in errors[str(gone)]["error"]


def test_import_rows_takes_only_the_chosen_rows_untrusted(tmp_path: Path, catalog: ServerCatalog) -> None:
    ref = SourceRef("cursor", str(_write(tmp_path / "cursor.json", json.dumps(CURSOR))))
    keys = {r["name"]: r["key"] for r in preview_rows(preview_sources([ref], catalog.all()))}
    outcomes, _preview = import_rows(catalog, [ref], {keys["search"]: "skip"})
    assert [(o.name, o.status) for o in outcomes] == [("search", "added")]
    (record,) = catalog.all()
    assert record.is_trusted is False and record.config.env["SEARCH_API_KEY"] == "${secret:SEARCH_API_KEY}"
    assert catalog.vault.resolve(record)[0]["SEARCH_API_KEY"] == "sk-9"


def test_plan_then_write_keeps_other_servers_backs_up_and_refuses_a_changed_file(
    tmp_path: Path, catalog: ServerCatalog
) -> None:
    record = catalog.add(McpServerInput.model_validate({"name": "mine", "config": {"command": "uvx", "args": ["x"]}}))
    assert record is not None
    target = _write(tmp_path / ".cursor" / "mcp.json", json.dumps({"mcpServers": {"theirs": {"command": "a"}}}))
    plan = plan_app_write(export_text([record], "cursor"), target)
    assert plan["exists"] and plan["replaced"] == [] and '+    "mine": {' in plan["diff"]
    assert set(json.loads(plan["after"])["mcpServers"]) == {"theirs", "mine"}
    _write(target, json.dumps({"mcpServers": {"theirs": {"command": "b"}}}))
    with pytest.raises(ConfigError, match="changed since the diff was shown"):
        write_app_config(target, plan["after"], plan["digest"])
    assert not list(target.parent.glob("*.elftia-backup-*"))
    fresh = plan_app_write(export_text([record], "cursor"), target)
    done = write_app_config(target, fresh["after"], fresh["digest"])
    assert json.loads(Path(done["backup"]).read_text())["mcpServers"]["theirs"]["command"] == "b"
    assert target.read_text() == fresh["after"] and digest(target.read_text()) == digest(fresh["after"])


def test_a_new_file_is_created_and_jsonc_comments_are_named(tmp_path: Path, catalog: ServerCatalog) -> None:
    record = catalog.add(McpServerInput.model_validate({"name": "mine", "config": {"command": "uvx", "args": ["x"]}}))
    assert record is not None
    missing = tmp_path / "new" / "mcp.json"
    plan = plan_app_write(export_text([record], "vscode"), missing)
    assert not plan["exists"] and plan["diff"].startswith("--- (no file yet)")
    assert write_app_config(missing, plan["after"], plan["digest"])["backup"] is None
    assert json.loads(missing.read_text())["servers"]["mine"]["command"] == "uvx"
    commented = _write(tmp_path / "code" / "mcp.json", '{\n  // mine\n  "servers": {}\n}\n')
    plan = plan_app_write(export_text([record], "vscode"), commented)
    assert any("comments" in w for w in plan["warnings"]) and "-  // mine" in plan["diff"]
