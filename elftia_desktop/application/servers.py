"""Actions on the saved servers: add, add pasted JSON, update, remove, trust.

Each takes where it acts: an ``McpService`` (the window, the gateway), whose connections follow
the edit (a new active server connects, a changed one reconnects, a removed one stops; the
result says when one did not connect), or a bare ``ServerCatalog`` (the CLI's list commands),
where nothing starts. Results are ``McpActionResult``;
a failure names its server in ``server_name`` and its ``reason`` apart from the ``error`` text.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Union

from elftia_desktop.application import messages
from elftia_desktop.core.catalog import ConflictPolicy, ServerCatalog, sandbox_by_default
from elftia_desktop.core.errors import ElftiaError, JsonInputError, is_input_error
from elftia_desktop.core.models import McpActionResult, McpServerInput, McpServerJsonInput, McpServerRecord
from elftia_desktop.core.server_json import ParsedServer, parse_servers_json

if TYPE_CHECKING:
    from elftia_desktop.connections.server_edits import ServerEdits
    from elftia_desktop.connections.service import McpService

Target = Union[ServerCatalog, "McpService"]
"""Where an action acts: a running service (connections follow) or the bare catalog (nothing starts)."""


def target_parts(target: Target) -> tuple[ServerCatalog, ServerEdits | None]:
    """The catalog an action edits, and the service's edits the connections follow (None: the bare catalog)."""
    if isinstance(target, ServerCatalog):
        return target, None
    return target.catalog, target.edits


def failure(server_name: str, reason: str, *, skipped: bool = False, bad_input: bool = True) -> McpActionResult:
    """A failed action on one server: ``error`` reads "name: reason", the parts are fields."""
    return McpActionResult(
        success=False,
        error=messages.about_server(server_name, reason),
        server_name=server_name,
        reason=reason,
        skipped=skipped,
        bad_input=bad_input,
    )


def failed(error: ElftiaError, server_name: str | None = None) -> McpActionResult:
    """An action refused by ``error``: ``error`` is its text; the server, the reason and whose fault are fields."""
    return McpActionResult(
        success=False,
        error=str(error),
        server_name=error.server_name or server_name,
        reason=error.reason,
        bad_input=is_input_error(error),
    )


async def add(
    target: Target, server: McpServerInput, on_conflict: ConflictPolicy = "fail", *, connect: bool = True
) -> McpActionResult:
    """Save a server (saved first); then connect it when active and ``connect``. A failed connect keeps it.

    ``connect=False``: the window's form, which closes at once and lets the card show the connecting.
    """
    catalog, edits = target_parts(target)
    try:
        record = await asyncio.to_thread(catalog.add, server, on_conflict)
    except ElftiaError as exc:
        return failure(server.name, exc.reason, bad_input=is_input_error(exc))
    if record is None:
        return failure(server.name, messages.NAME_TAKEN_SKIPPED, skipped=True, bad_input=False)
    problem = await edits.added(record, connect=connect) if edits is not None else None
    return McpActionResult(
        success=True, message=messages.added(record.name, problem), server=record, connect_problem=problem
    )


async def add_parsed(
    target: Target, parsed: list[ParsedServer], trust: bool, on_conflict: ConflictPolicy = "fail"
) -> McpActionResult:
    """Add every parsed server; one result per server, one bad entry does not stop the rest."""
    results: list[McpActionResult] = []
    for entry in parsed:
        if entry.server is None:
            results.append(failure(entry.name, entry.error or "not a server definition"))
            continue
        entry.server.is_trusted = trust
        results.append(await add(target, sandbox_by_default(entry.server), on_conflict))
    ok = sum(r.success for r in results)
    return McpActionResult(
        success=bool(results) and ok == len(results),
        message=messages.added_count(ok, len(results)),
        error=None if ok == len(results) else messages.not_added_count(len(results) - ok, len(results)),
        results=results,
    )


async def add_json(target: Target, data: McpServerJsonInput) -> McpActionResult:
    """Add every server in pasted JSON (see :func:`add_parsed`); malformed JSON is one failed result."""
    try:
        parsed = parse_servers_json(data.json_text)
    except JsonInputError as exc:
        return failed(exc).model_copy(update={"results": []})
    return await add_parsed(target, parsed, data.trust, data.on_conflict)


async def _update(
    target: Target, server_id: str, updates: dict[str, Any], connect: bool = True
) -> tuple[McpServerRecord, str | None] | McpActionResult:
    """The record after the update and why it did not reconnect, or the failed result."""
    updates = dict(updates)
    secret_keys = set(updates.pop("secretKeys", None) or updates.pop("secret_keys", None) or [])
    catalog, edits = target_parts(target)
    try:
        before, after = await asyncio.to_thread(catalog.update, server_id, updates, secret_keys)
    except ElftiaError as exc:
        return failed(exc, await _name_of(catalog, server_id))
    return after, (await edits.updated(before, after, connect=connect) if edits is not None else None)


async def update(target: Target, server_id: str, updates: dict[str, Any], *, connect: bool = True) -> McpActionResult:
    """Merge ``updates`` into a server; it reconnects when what it runs or where it connects changed.

    ``connect=False``: a changed server is only disconnected (the window's form connects it afterwards).

    ``updates["secretKeys"]`` (optional) names env/header keys the user marked secret.
    """
    done = await _update(target, server_id, updates, connect)
    if isinstance(done, McpActionResult):
        return done
    after, problem = done
    return McpActionResult(
        success=True, message=messages.updated(after.name, problem), server=after, connect_problem=problem
    )


async def trust(target: Target, server_id: str) -> McpActionResult:
    """Record that the user confirmed what the server runs (or where it connects)."""
    done = await _update(target, server_id, {"isTrusted": True})
    if isinstance(done, McpActionResult):
        return done
    after, problem = done
    return McpActionResult(
        success=True, message=messages.trusted(after.name, problem), server=after, connect_problem=problem
    )


async def remove(target: Target, server_id: str) -> McpActionResult:
    """Stop a server, then delete it and its secrets and take it out of every agent (named in ``agentsUpdated``)."""
    catalog, edits = target_parts(target)
    if edits is not None:
        await edits.removing(server_id)
    try:
        removed, lost = await asyncio.to_thread(catalog.remove, server_id)
    except ElftiaError as exc:
        return failed(exc, await _name_of(catalog, server_id))
    if edits is not None:
        edits.removed(server_id)
    if not isinstance(target, ServerCatalog):  # its pinned tool definitions go with it
        await asyncio.to_thread(target.tool_guard.forget, server_id)
    await asyncio.to_thread(_discard_bundle_folder, catalog, removed)
    names = [agent.name for agent in lost]
    return McpActionResult(
        success=True, message=messages.removed(removed.name, names), server=removed, agents_updated=names
    )


def _discard_bundle_folder(catalog: ServerCatalog, removed: McpServerRecord) -> None:
    """A removed ``.mcpb`` server's unpacked folder goes with it (unless another server runs from it)."""
    from elftia_desktop.registry.bundle_plan import discard_unpacked

    discard_unpacked(removed, catalog.all())


async def _name_of(catalog: ServerCatalog, server_id: str) -> str | None:
    """The name of a saved server, or None when there is none with that id."""
    try:
        return (await asyncio.to_thread(catalog.get, server_id)).name
    except ElftiaError:
        return None
