"""What a fresh install starts with: the built-in servers, so the app does something real
with no Node and no network."""

from __future__ import annotations

from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.core.presets import load_presets, preset_to_input


def seed_builtin_servers(catalog: ServerCatalog) -> list[McpServerRecord]:
    """Add every built-in preset when the config file did not exist yet; returns what was added."""
    if not catalog.store.fresh or catalog.all():
        return []
    added = []
    for preset in load_presets():
        if preset.install_source == "builtin":
            record = catalog.add(preset_to_input(preset), on_conflict="skip")
            if record is not None:
                added.append(record)
    return added
