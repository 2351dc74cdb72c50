"""Updates of servers installed from a registry: which have a newer version, and re-pinning one.

An update builds the launch of the new version from the same kind of package, reuses the inputs the
user gave (non-secret ones from ``registryOrigin.inputs``; secret env vars and headers keep their
keyring references) and saves the server untrusted again: the command changed, so the user
confirms it again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.core.secrets import is_secret_ref
from elftia_desktop.registry.cache import FEATURED_SOURCE
from elftia_desktop.registry.client import RegistryClient
from elftia_desktop.registry.entry import RegistryEntry
from elftia_desktop.registry.errors import InputsMissing, RegistryError
from elftia_desktop.registry.plan import InstallPlan

_KEEP = "__elftia_keep_secret__"


@dataclass(frozen=True)
class Outdated:
    """A server with a newer version in its registry."""

    record: McpServerRecord
    current: str
    latest: str
    entry: RegistryEntry


def version_key(version: str) -> tuple[tuple[int, str], ...]:
    """A sort key: numeric parts as numbers (``1.10.0`` after ``1.9.2``), a pre-release before its release."""
    main, _, pre = version.lstrip("vV").partition("-")
    parts: list[tuple[int, str]] = [(int(p), "") if p.isdigit() else (-1, p) for p in re.split(r"[.+]", main)]
    parts.append((0, "~") if not pre else (-1, pre))
    return tuple(parts)


def is_newer(candidate: str, current: str) -> bool:
    """True when ``candidate`` is a later version than ``current``."""
    return candidate != current and version_key(candidate) > version_key(current)


def registry_records(records: Iterable[McpServerRecord]) -> list[McpServerRecord]:
    """The records installed from a registry (not bundles from a file, not featured entries)."""
    return [
        r
        for r in records
        if r.registry_origin is not None and r.registry_origin.registry not in ("bundle", FEATURED_SOURCE)
    ]


async def find_outdated(
    records: Iterable[McpServerRecord], clients: Mapping[str, RegistryClient]
) -> tuple[list[Outdated], list[str]]:
    """Servers whose registry has a newer latest version, and the problems met (one per server)."""
    found: list[Outdated] = []
    problems: list[str] = []
    for record in registry_records(records):
        origin = record.registry_origin
        assert origin is not None
        client = clients.get(origin.registry) or RegistryClient(origin.registry)
        try:
            latest = await client.entry(origin.name, "latest")
        except RegistryError as exc:
            problems.append(f"{record.name}: {exc}")
            continue
        if is_newer(latest.server.version, origin.version):
            found.append(Outdated(record, origin.version, latest.server.version, latest))
    return found, problems


def update_changes(record: McpServerRecord, plan: InstallPlan) -> tuple[dict[str, Any], set[str]]:
    """The field updates that re-pin ``record`` to ``plan``'s version with the user's inputs, and the
    secret keys; the record becomes untrusted. ``InputsMissing`` names a new secret the user must give."""
    origin = record.registry_origin
    assert origin is not None
    old_values = {**record.config.env, **record.config.headers}
    given = dict(origin.inputs)
    for field in plan.fields:
        if field.secret and field.key not in given:
            given[field.key] = _KEEP
    server = plan.to_input(record.name, given)
    config = server.config
    for values in (config.env, config.headers):
        for key, value in list(values.items()):
            if _KEEP not in value:
                continue
            old = old_values.get(key)
            if old is None or not is_secret_ref(old):
                raise InputsMissing(
                    f"{key}: the new version needs this secret; give it with --value {key}=VALUE", [key]
                )
            values[key] = old
    updates = {
        "type": server.type,
        "config": config.to_json_dict(),
        "registryOrigin": (server.registry_origin.to_json_dict() if server.registry_origin else None),
        "isTrusted": False,
    }
    return updates, set(server.secret_keys)
