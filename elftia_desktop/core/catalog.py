"""CRUD of server records on the config store, with secrets moved to the vault.

This is the part of ``McpService`` that needs no connection, shared by the service, the
CLI and the importers: names stay unique (case-insensitive), ids never change, ``updatedAt``
is set, and secret values never reach the JSON. With an :class:`AgentStore`, removing a server
takes it out of every agent (and says which), and a server replaced on import stays selected.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ValidationError
from pydantic.alias_generators import to_camel

from elftia_desktop.core.agent_store import AgentStore
from elftia_desktop.core.approvals import with_choice
from elftia_desktop.core.config_store import ConfigStore, describe_validation_error
from elftia_desktop.core.errors import ConfigError, DuplicateServerName, ServerNotFound
from elftia_desktop.core.models import Agent, McpServerInput, McpServerRecord, McpServerTransport, now_ms
from elftia_desktop.core.oauth_config import OAUTH_SECRETS
from elftia_desktop.core.sandbox import default_sandbox
from elftia_desktop.core.secrets import SECRET_REF_INSIDE, SecretVault
from elftia_desktop.core.text_rules import name_key, quoted
from elftia_desktop.core.trust import launch_changes, launch_of, mark_trusted
from elftia_desktop.platform.sandbox import sandbox_support

ConflictPolicy = Literal["rename", "skip", "replace", "fail"]
ToolFlag = Literal["enabled", "autoApprove"]
"""``enabled``: the tool is offered to agents; ``autoApprove``: it runs without asking first."""
_IMMUTABLE_FIELDS = {"id", "createdAt", "created_at"}


def _index_of(records: list[McpServerRecord], server_id: str) -> int:
    """Where the record with ``server_id`` is in ``records``; ``ServerNotFound`` otherwise."""
    index = next((i for i, r in enumerate(records) if r.id == server_id), None)
    if index is None:
        raise ServerNotFound(f"No server with id {server_id!r}")
    return index


def _same(before: McpServerRecord, after: McpServerRecord) -> bool:
    """True when ``after`` differs from ``before`` in nothing but ``updatedAt``."""
    return before.model_dump(mode="json", exclude={"updated_at"}) == after.model_dump(
        mode="json", exclude={"updated_at"}
    )


def free_name(name: str, taken: set[str]) -> str:
    """``name``, or ``name (2)``, ``name (3)`` ... whichever is not in ``taken`` (:func:`name_key` values)."""
    candidate, n = name, 2
    while name_key(candidate) in taken:
        candidate, n = f"{name} ({n})", n + 1
    return candidate


class ServerCatalog:
    """The server list as a user edits it."""

    def __init__(self, store: ConfigStore, vault: SecretVault, agents: AgentStore | None = None) -> None:
        self.store = store
        self.vault = vault
        self.agents = agents
        """The agents kept consistent with the server list (None: no agents to update)."""

    def all(self) -> list[McpServerRecord]:
        """All records in file order."""
        return self.store.records()

    def get(self, server_id: str) -> McpServerRecord:
        """The record with that id; ``ServerNotFound`` otherwise."""
        record = self.store.get(server_id)
        if record is None:
            raise ServerNotFound(f"No server with id {server_id!r}")
        return record

    def find(self, name_or_id: str) -> McpServerRecord:
        """The record with that id or name (case-insensitive)."""
        records = self.store.records()
        for record in records:
            if record.id == name_or_id:
                return record
        for record in records:
            if name_key(record.name) == name_key(name_or_id.strip()):
                return record
        names = ", ".join(r.name for r in records) or "none configured"
        raise ServerNotFound(f"No server named {name_or_id!r} (servers: {names})")

    def add(self, server: McpServerInput, on_conflict: ConflictPolicy = "fail") -> McpServerRecord | None:
        """Save a new server; returns None when it was skipped because the name is taken."""
        if server.install_source in UNVETTED_SOURCES:
            server = sandbox_by_default(server)
        record = self.vault.extract(server.to_record(), set(server.secret_keys))
        if record.is_trusted:
            mark_trusted(record)
        replaced: list[str] = []

        def change(records: list[McpServerRecord]) -> McpServerRecord | None:
            """Append the record, or skip or replace a server with the same name."""
            clash = _clash(records, record.name)
            if clash is not None:
                if on_conflict == "skip":
                    return None
                if on_conflict == "fail":
                    raise DuplicateServerName(_taken_message(record.name, clash.name))
                if on_conflict == "rename":
                    record.name = free_name(record.name, {name_key(r.name) for r in records})
                else:
                    records.remove(clash)
                    self.vault.forget(clash)
                    replaced.append(clash.id)
            records.append(record)
            return record

        try:
            added = self.store.mutate(change)
        except BaseException:
            self.vault.forget(record)
            raise
        if self.agents is not None and replaced:
            self.agents.replace_server(replaced[0], record.id)
        return added

    def update(
        self, server_id: str, updates: dict[str, Any], secret_keys: set[str] | None = None
    ) -> tuple[McpServerRecord, McpServerRecord]:
        """Merge ``updates`` (camelCase or snake_case keys) into a record; returns (before, after).

        An update that changes nothing leaves the record as it was, ``updatedAt`` too (``after`` is ``before``).
        """
        bad = _IMMUTABLE_FIELDS & updates.keys()
        if bad:
            raise ConfigError(f"{sorted(bad)[0]}: cannot be changed")

        def change(records: list[McpServerRecord]) -> tuple[McpServerRecord, McpServerRecord]:
            """Apply the changes to the stored record; (before, after)."""
            index = _index_of(records, server_id)
            before = records[index]
            merged = before.to_json_dict() | _camel_keys(updates)
            if isinstance(updates.get("config"), dict):
                merged["config"] = before.config.to_json_dict() | _camel_keys(updates["config"])
            merged["updatedAt"] = now_ms()
            try:
                after = McpServerRecord.model_validate(merged)
            except ValidationError as exc:
                raise ConfigError(describe_validation_error(exc)) from exc
            clash = _clash([r for r in records if r.id != server_id], after.name)
            if clash is not None:
                raise DuplicateServerName(_taken_message(after.name, clash.name))
            after = self.vault.extract(after, secret_keys)
            if _camel_keys(updates).get("isTrusted") is True:
                mark_trusted(after)
            elif before.is_trusted and launch_of(after) != launch_of(before) and _loosened(after):
                after.is_trusted = False
            if _same(before, after):  # nothing changed: the record stays as it was, ``updatedAt`` too
                return before, before
            records[index] = after
            return before, after

        before, after = self.store.mutate(change)
        self._forget_dropped_secrets(before, after)
        return before, after

    def set_tool_flag(
        self, server_id: str, tool_name: str, flag: ToolFlag, value: bool
    ) -> tuple[McpServerRecord, McpServerRecord]:
        """Switch one flag of one tool in one locked read-modify-write; returns (before, after).

        ``enabled`` lives in the record's ``disabledTools`` list (``value`` False puts the tool in, True
        takes it out); ``autoApprove`` in ``disabledAutoApproveTools`` and ``autoApprovedTools`` (see
        :mod:`elftia_desktop.core.approvals`). Two switches at once (two windows,
        the CLI) both stay: each reads the list under the store's lock.
        """

        def change(records: list[McpServerRecord]) -> tuple[McpServerRecord, McpServerRecord]:
            """Switch the flag on the stored record; (before, after)."""
            index = _index_of(records, server_id)
            before = records[index]
            if flag == "autoApprove":
                update: dict[str, Any] = with_choice(before, tool_name, value)
            else:
                names = [name for name in before.disabled_tools if name != tool_name]
                update = {"disabled_tools": names if value else [*names, tool_name]}
            after = before.model_copy(update={**update, "updated_at": now_ms()})
            records[index] = after
            return before, after

        return self.store.mutate(change)

    def remove(self, server_id: str) -> tuple[McpServerRecord, list[Agent]]:
        """Delete a record and its secrets, and take it out of every agent.

        Returns what was removed and the agents that had selected it (as they are now).
        """

        def change(records: list[McpServerRecord]) -> McpServerRecord:
            """Remove the record from the list."""
            for record in records:
                if record.id == server_id:
                    records.remove(record)
                    return record
            raise ServerNotFound(f"No server with id {server_id!r}")

        removed = self.store.mutate(change)
        self.vault.forget(removed)
        lost = self.agents.forget_server(server_id) if self.agents is not None else []
        return removed, lost

    def _forget_dropped_secrets(self, before: McpServerRecord, after: McpServerRecord) -> None:
        kept = McpServerRecord.model_validate(before.to_json_dict())
        kept.config.env = {k: v for k, v in before.config.env.items() if after.config.env.get(k) != v}
        kept.config.headers = {k: v for k, v in before.config.headers.items() if after.config.headers.get(k) != v}
        kept.config.url = None
        now_in_url = set(SECRET_REF_INSIDE.findall(after.config.url or ""))
        for name in set(SECRET_REF_INSIDE.findall(before.config.url or "")) - now_in_url:
            self.vault.delete(before.id, "url", name)
        if kept.config.oauth is not None:
            still = after.config.oauth
            for name in OAUTH_SECRETS:
                if still is not None and still.secret(name):
                    kept.config.oauth.set_secret(name, None)
        self.vault.forget(kept, session=_sign_in_changed(before, after))


def _sign_in_changed(before: McpServerRecord, after: McpServerRecord) -> bool:
    """True when the URL or the OAuth client changed, so tokens of the old sign-in must go."""

    def client(record: McpServerRecord) -> dict[str, Any] | None:
        """The record's OAuth settings without its secrets."""
        oauth = record.config.oauth
        if oauth is None:
            return None
        bare = oauth.model_copy(deep=True)
        for name in OAUTH_SECRETS:
            bare.set_secret(name, None)
        return bare.model_dump()

    return before.config.url != after.config.url or client(before) != client(after)


def _clash(records: list[McpServerRecord], name: str) -> McpServerRecord | None:
    """The record whose name is the same as or confusable with ``name``."""
    key = name_key(name)
    return next((r for r in records if name_key(r.name) == key), None)


def _taken_message(name: str, existing: str) -> str:
    if name.lower() == existing.lower():
        return f"name: a server named {quoted(existing)} exists already"
    return f"name: {quoted(name)} looks the same as the existing server {quoted(existing)}; choose another name"


def _camel_keys(values: dict[str, Any]) -> dict[str, Any]:
    return {to_camel(k): v for k, v in values.items()}


def _loosened(after: McpServerRecord) -> bool:
    """True when a changed launch needs confirming again (a tighter sandbox alone does not)."""
    return after.trusted_launch is None or bool(launch_changes(after))


UNVETTED_SOURCES = ("registry", "bundle", "protocol", "unknown")
"""Where a server comes from that the user did not write: it starts sandboxed where a sandbox works."""


def sandbox_by_default(server: McpServerInput) -> McpServerInput:
    """``server`` with the default sandbox (files and environment confined, only the package registries),
    when it is a stdio server without a profile and a sandbox works here; else unchanged."""
    if server.type is not McpServerTransport.STDIO or server.sandbox is not None or sandbox_support() is not None:
        return server
    return server.model_copy(update={"sandbox": default_sandbox()})
