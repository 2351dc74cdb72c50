"""Built-in MCP server: notes kept in the app's data folder, as tools and as ``note://{id}`` resources.

Run it as ``python -m elftia_desktop.builtin_servers.notes`` (stdio). Notes live in
``data_dir()/notes`` (``ELFTIA_DATA_DIR`` overrides the data folder), one JSON file each.
"""

from __future__ import annotations

import functools
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp_types import Resource as MCPResource
from mcp_types import ToolAnnotations

from elftia_desktop.builtin_servers.notes_store import Note, NotesStore, NoteSummary, render_markdown

RESOURCE_PREFIX = "note://"

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
"""Reading and searching notes: runs without asking by default."""
ADDS = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
"""Adding a note changes the store but loses nothing: asks by default."""
DESTRUCTIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)
"""Changing or deleting a note loses what was there: asks by default."""


@functools.cache
def store() -> NotesStore:
    """The store of this process (created on first use, so ``ELFTIA_DATA_DIR`` is read at run time)."""
    return NotesStore()


class NotesServer(MCPServer[Any]):
    """An ``MCPServer`` that also lists every note as a resource."""

    async def list_resources(self) -> list[MCPResource]:
        """The static resources plus one ``note://{id}`` resource per note."""
        static = await super().list_resources()
        notes = [
            MCPResource(
                uri=f"{RESOURCE_PREFIX}{note.id}",
                name=note.title,
                description=f"Note updated {note.updated}" + (f"; tags: {', '.join(note.tags)}" if note.tags else ""),
                mime_type="text/markdown",
            )
            for note in store().all_notes()
        ]
        return static + notes


server = NotesServer(
    "notes",
    instructions="Personal notes stored on this computer. Create, read, update, delete, search and list them.",
    log_level="WARNING",
)


@server.tool(annotations=ADDS)
def create_note(title: str, body: str = "", tags: list[str] | None = None) -> Note:
    """Create a note; returns it with its id (needed to read, update or delete it)."""
    return store().create(title, body, tags)


@server.tool(annotations=READ_ONLY)
def read_note(note_id: str) -> Note:
    """The full note with `note_id`."""
    return store().read(note_id)


@server.tool(annotations=DESTRUCTIVE)
def update_note(
    note_id: str,
    title: str | None = None,
    body: str | None = None,
    append: str | None = None,
    tags: list[str] | None = None,
) -> Note:
    """Change a note: a new `title`, `body` (replaces it) or `tags`; `append` adds a paragraph."""
    if title is None and body is None and append is None and tags is None:
        raise ToolError("nothing to update: give at least one of title, body, append, tags")
    return store().update(note_id, title=title, body=body, append=append, tags=tags)


@server.tool(annotations=DESTRUCTIVE)
def delete_note(note_id: str) -> str:
    """Delete a note for good."""
    note = store().delete(note_id)
    return f"Deleted note {note.id} ({note.title!r})."


@server.tool(annotations=READ_ONLY)
def search_notes(query: str, limit: int = 20) -> list[NoteSummary]:
    """Notes whose title, body or tags contain every word of `query` (case-insensitive), newest first."""
    return store().search(query, limit)


@server.tool(annotations=READ_ONLY)
def list_notes(tag: str | None = None) -> list[NoteSummary]:
    """Every note (or those with `tag`), newest first, with a snippet of each."""
    return store().summaries(tag)


@server.resource(
    RESOURCE_PREFIX + "{note_id}", name="note", description="One note as Markdown", mime_type="text/markdown"
)
def note_resource(note_id: str) -> str:
    """A note rendered as Markdown."""
    try:
        return render_markdown(store().read(note_id))
    except ToolError as exc:
        raise ResourceNotFoundError(str(exc)) from exc


def main() -> None:
    """Serve over stdio until the client closes stdin."""
    server.run("stdio")


if __name__ == "__main__":
    main()
