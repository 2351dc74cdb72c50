"""The notes server's storage: one JSON file per note in ``data_dir()/notes``, written atomically.

Several processes may run the notes server at once (one per agent session), so every
read-modify-write holds an inter-process lock on ``notes/.lock``.
"""

from __future__ import annotations

import json
import re
import secrets
from datetime import UTC, datetime
from pathlib import Path

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field, ValidationError

from elftia_desktop.core.atomic_file import FileLock, atomic_write_text
from elftia_desktop.core.paths import data_dir

NOTE_ID = re.compile(r"^[0-9a-f]{12}$")
MAX_TITLE = 200


class Note(BaseModel):
    """One note."""

    id: str
    title: str
    body: str = ""
    tags: list[str] = Field(default_factory=list)
    created: str
    """ISO 8601, UTC."""
    updated: str
    """ISO 8601, UTC."""


class NoteSummary(BaseModel):
    """A note in a listing: no body, a short snippet instead."""

    id: str
    title: str
    tags: list[str]
    updated: str
    snippet: str


def _now() -> str:
    return datetime.now(tz=UTC).isoformat(timespec="seconds")


def _clean_title(title: str) -> str:
    cleaned = " ".join(title.split())
    if not cleaned:
        raise ToolError("title: a note needs a non-empty title")
    if len(cleaned) > MAX_TITLE:
        raise ToolError(f"title: at most {MAX_TITLE} characters, got {len(cleaned)}")
    return cleaned


def _clean_tags(tags: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for tag in tags:
        cleaned = tag.strip().lower()
        if cleaned:
            seen.setdefault(cleaned, None)
    return list(seen)


class NotesStore:
    """CRUD and search over the notes folder (blocking file I/O; the SDK runs sync tools in a thread)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder if folder is not None else data_dir() / "notes"
        self.folder.mkdir(parents=True, exist_ok=True)
        self._lock = FileLock(self.folder / ".lock")

    def _path(self, note_id: str) -> Path:
        if not NOTE_ID.match(note_id):
            raise ToolError(f"note_id {note_id!r} is not a note id: expected 12 hex digits as returned by create_note")
        return self.folder / f"{note_id}.json"

    def _load(self, path: Path) -> Note:
        try:
            return Note.model_validate_json(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ToolError(f"no note with id {path.stem!r}; list_notes shows the existing ones") from None
        except (ValidationError, ValueError) as exc:
            raise ToolError(f"note file {path.name} is damaged: {exc}") from exc

    def _save(self, note: Note) -> None:
        text = json.dumps(note.model_dump(mode="json"), ensure_ascii=False, indent=2) + "\n"
        atomic_write_text(self._path(note.id), text, mode=0o600)

    def create(self, title: str, body: str = "", tags: list[str] | None = None) -> Note:
        """Store a new note and return it."""
        stamp = _now()
        with self._lock.hold():
            note_id = secrets.token_hex(6)
            while self._path(note_id).exists():
                note_id = secrets.token_hex(6)
            note = Note(
                id=note_id,
                title=_clean_title(title),
                body=body,
                tags=_clean_tags(tags or []),
                created=stamp,
                updated=stamp,
            )
            self._save(note)
        return note

    def read(self, note_id: str) -> Note:
        """The note with ``note_id``."""
        return self._load(self._path(note_id))

    def update(
        self,
        note_id: str,
        *,
        title: str | None = None,
        body: str | None = None,
        append: str | None = None,
        tags: list[str] | None = None,
    ) -> Note:
        """Change the given fields of a note (``append`` adds a paragraph to the body)."""
        with self._lock.hold():
            note = self._load(self._path(note_id))
            changes: dict[str, object] = {"updated": _now()}
            if title is not None:
                changes["title"] = _clean_title(title)
            new_body = body if body is not None else note.body
            if append:
                new_body = f"{new_body.rstrip()}\n\n{append}" if new_body.strip() else append
            changes["body"] = new_body
            if tags is not None:
                changes["tags"] = _clean_tags(tags)
            updated = note.model_copy(update=changes)
            self._save(updated)
        return updated

    def delete(self, note_id: str) -> Note:
        """Remove a note; returns what was removed."""
        with self._lock.hold():
            path = self._path(note_id)
            note = self._load(path)
            path.unlink()
        return note

    def all_notes(self) -> list[Note]:
        """Every readable note, most recently updated first (damaged files are skipped)."""
        notes = []
        for path in self.folder.glob("*.json"):
            try:
                notes.append(self._load(path))
            except ToolError:
                continue
        return sorted(notes, key=lambda n: n.updated, reverse=True)

    def summaries(self, tag: str | None = None) -> list[NoteSummary]:
        """Summaries of every note, or of those with ``tag``."""
        wanted = tag.strip().lower() if tag else None
        return [summarize(n, "") for n in self.all_notes() if wanted is None or wanted in n.tags]

    def search(self, query: str, limit: int = 20) -> list[NoteSummary]:
        """Notes whose title, body or tags contain every word of ``query`` (case-insensitive)."""
        words = query.lower().split()
        if not words:
            raise ToolError("query: give at least one word to search for")
        if limit < 1:
            raise ToolError(f"limit must be at least 1, got {limit}")
        hits = []
        for note in self.all_notes():
            haystack = " ".join([note.title, note.body, *note.tags]).lower()
            if all(word in haystack for word in words):
                hits.append(summarize(note, words[0]))
        return hits[:limit]


def summarize(note: Note, focus: str) -> NoteSummary:
    """A summary with a snippet of the body around ``focus`` (or its start)."""
    body = " ".join(note.body.split())
    at = body.lower().find(focus) if focus else -1
    start = max(0, at - 40) if at >= 0 else 0
    snippet = body[start : start + 120]
    if start > 0:
        snippet = "…" + snippet
    if start + 120 < len(body):
        snippet += "…"
    return NoteSummary(id=note.id, title=note.title, tags=note.tags, updated=note.updated, snippet=snippet)


def render_markdown(note: Note) -> str:
    """A note as Markdown, for its MCP resource."""
    tags = f"\n\nTags: {', '.join(note.tags)}" if note.tags else ""
    return f"# {note.title}\n\n{note.body}{tags}\n"
