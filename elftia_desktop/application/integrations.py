"""Writing our servers into another app's config file: plan the change, then write exactly what was shown.

The window shows the plan's diff; the write is refused when the app's file, or the text the servers
now produce, differs from what the diff showed (both by their fingerprints). Qt-free: the bridge
and the CLI call these on the service loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from elftia_desktop.core.catalog import ServerCatalog
    from elftia_desktop.core.models import McpServerRecord


async def records(catalog: ServerCatalog, server_ids: Iterable[str]) -> list[McpServerRecord]:
    """The records of ``server_ids`` (read in a worker thread); an unknown id raises ``ServerNotFound``."""
    ids = list(server_ids)
    return await asyncio.to_thread(lambda: [catalog.get(i) for i in ids])


async def plan_export_into_app(catalog: ServerCatalog, server_ids: Iterable[str], fmt: str) -> dict[str, Any]:
    """The app's file now and after merging our servers in: ``{path, exists, after, diff, replaced, digest,
    afterDigest, warnings, placeholders}``; nothing is written."""
    from elftia_desktop.integrations.app_config_file import digest
    from elftia_desktop.integrations.transfer import app_config_path, export_text, plan_app_write

    result = export_text(await records(catalog, server_ids), fmt)
    plan = await asyncio.to_thread(plan_app_write, result, app_config_path(fmt))
    return plan | {"afterDigest": digest(plan["after"])}


async def export_into_app(
    catalog: ServerCatalog, server_ids: Iterable[str], fmt: str, digest: str, after_digest: str
) -> dict[str, Any]:
    """Back the app's file up, then write what the diff showed: ``{path, backup}``.

    ``digest`` and ``after_digest`` are the plan's fingerprints of the file and of the merged text
    the user saw; when either differs now, ``ConfigError`` says so and nothing is written.
    """
    from elftia_desktop.core.errors import ConfigError
    from elftia_desktop.integrations.app_config_file import digest as fingerprint
    from elftia_desktop.integrations.transfer import write_app_config

    plan = await plan_export_into_app(catalog, server_ids, fmt)
    if plan["digest"] != digest or fingerprint(plan["after"]) != after_digest:
        raise ConfigError(f"{plan['path']} or the servers changed since the diff was shown; nothing written.")
    return await asyncio.to_thread(write_app_config, Path(plan["path"]), plan["after"], digest)
