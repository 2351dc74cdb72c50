"""Opening the app's stores from the CLI, with their notices printed as warnings."""

from __future__ import annotations

from elftia_desktop.cli.output import warn
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.secrets import SecretVault


def open_catalog() -> ServerCatalog:
    """The server catalog on the user's config file; load problems go to stderr."""
    store = ConfigStore()
    vault = SecretVault()
    for notice in store.notices:
        warn(notice)
    return ServerCatalog(store, vault)
