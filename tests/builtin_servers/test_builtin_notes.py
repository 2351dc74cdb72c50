"""The notes server on the SDK's in-memory transport (test_builtin_launcher.py starts it as a process):
CRUD, search, listing, resources, storage in the data folder."""

from __future__ import annotations

import json
from pathlib import Path

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from tests.builtin_servers.builtin_helpers import builtin_session, call, call_error

pytestmark = pytest.mark.anyio


async def test_create_read_update_delete_round_trip(isolated_data_dir: Path) -> None:
    async with builtin_session("notes") as session:
        note = await call(session, "create_note", title="  Groceries  ", body="milk", tags=["Home", "home", " shop "])
        assert note["title"] == "Groceries"
        assert note["tags"] == ["home", "shop"]
        stored = isolated_data_dir / "notes" / f"{note['id']}.json"
        assert json.loads(stored.read_text(encoding="utf-8"))["body"] == "milk"

        read = await call(session, "read_note", note_id=note["id"])
        assert read == note

        updated = await call(session, "update_note", note_id=note["id"], append="bread", title="Shopping")
        assert updated["body"] == "milk\n\nbread"
        assert updated["title"] == "Shopping"
        assert updated["created"] == note["created"]

        message = await call(session, "delete_note", note_id=note["id"])
        assert note["id"] in message and "Shopping" in message
        assert not stored.exists()
        missing = await call_error(session, "read_note", note_id=note["id"])
    assert f"no note with id {note['id']!r}" in missing


async def test_notes_survive_a_restart_of_the_server() -> None:
    async with builtin_session("notes") as session:
        note = await call(session, "create_note", title="Persistent", body="still here")
    async with builtin_session("notes") as session:
        listing = await call(session, "list_notes")
    assert [n["id"] for n in listing] == [note["id"]]
    assert listing[0]["snippet"] == "still here"


async def test_search_matches_every_word_in_title_body_or_tags() -> None:
    async with builtin_session("notes") as session:
        trip = await call(session, "create_note", title="Trip to Kyoto", body="Book the ryokan early", tags=["travel"])
        await call(session, "create_note", title="Work", body="Book a meeting room")
        both = await call(session, "search_notes", query="book")
        one = await call(session, "search_notes", query="BOOK travel")
        tagged = await call(session, "list_notes", tag="Travel")
        empty = await call_error(session, "search_notes", query="   ")
    assert len(both) == 2
    assert [n["id"] for n in one] == [trip["id"]]
    assert "ryokan" in one[0]["snippet"]
    assert [n["id"] for n in tagged] == [trip["id"]]
    assert "at least one word" in empty


async def test_bad_input_is_refused_with_the_field_named(isolated_data_dir: Path) -> None:
    async with builtin_session("notes") as session:
        traversal = await call_error(session, "read_note", note_id="../../etc/passwd")
        no_title = await call_error(session, "create_note", title="   ")
        note = await call(session, "create_note", title="x")
        nothing = await call_error(session, "update_note", note_id=note["id"])
    assert "is not a note id" in traversal
    assert "title" in no_title
    assert "nothing to update" in nothing
    assert sorted(p.name for p in (isolated_data_dir / "notes").glob("*.json")) == [f"{note['id']}.json"]


async def test_notes_are_listed_and_read_as_resources() -> None:
    async with builtin_session("notes") as session:
        note = await call(session, "create_note", title="Recipe", body="Flour and water", tags=["food"])
        resources = await session.list_resources()
        templates = await session.list_resource_templates()
        content = await session.read_resource(f"note://{note['id']}")
        with pytest.raises(MCPError) as missing:
            await session.read_resource("note://000000000000")
    [listed] = [r for r in resources.resources if str(r.uri) == f"note://{note['id']}"]
    assert listed.name == "Recipe"
    assert listed.mime_type == "text/markdown"
    assert [t.uri_template for t in templates.resource_templates] == ["note://{note_id}"]
    [text] = content.contents
    assert isinstance(text, types.TextResourceContents)
    assert text.text == "# Recipe\n\nFlour and water\n\nTags: food\n"
    assert "no note with id" in str(missing.value)


async def test_damaged_note_file_is_skipped_in_listings_and_named_on_read(isolated_data_dir: Path) -> None:
    async with builtin_session("notes") as session:
        good = await call(session, "create_note", title="Good")
        (isolated_data_dir / "notes" / "abcdefabcdef.json").write_text("{not json", encoding="utf-8")
        listing = await call(session, "list_notes")
        damaged = await call_error(session, "read_note", note_id="abcdefabcdef")
    assert [n["id"] for n in listing] == [good["id"]]
    assert "abcdefabcdef.json is damaged" in damaged
