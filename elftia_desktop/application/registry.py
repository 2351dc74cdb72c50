"""Servers from a registry or a ``.mcpb`` bundle: install one untrusted, re-pin one to a newer version.

Both act through :mod:`.servers` on a running service (the connections follow) or the bare
catalog (the CLI), so the window and the CLI install the same way.
"""

from __future__ import annotations

import asyncio
import shutil
from typing import TYPE_CHECKING

from elftia_desktop.application import servers
from elftia_desktop.application.servers import Target
from elftia_desktop.core.models import McpActionResult, McpServerInput, McpServerRecord

if TYPE_CHECKING:
    from elftia_desktop.registry.bundle_plan import BundlePlan
    from elftia_desktop.registry.plan import InstallPlan


async def install(target: Target, server: McpServerInput, bundle: BundlePlan | None = None) -> McpActionResult:
    """Unpack ``bundle`` (if any) into the data folder, then add ``server`` untrusted; a failed add undoes it."""
    from elftia_desktop.registry.bundle_plan import unpack

    folder = await asyncio.to_thread(unpack, bundle) if bundle is not None else None
    try:
        result = await servers.add(target, server.model_copy(update={"is_trusted": False}))
    except BaseException:
        if folder is not None:
            await asyncio.to_thread(shutil.rmtree, folder, True)
        raise
    if folder is not None and not result.success:
        await asyncio.to_thread(shutil.rmtree, folder, True)
    return result


async def repin(target: Target, record: McpServerRecord, plan: InstallPlan) -> McpActionResult:
    """Re-pin ``record`` to ``plan``'s version with the inputs in its ``registry_origin``; it is untrusted again.

    ``InputsMissing`` when the new version needs a secret the user has not given.
    """
    from elftia_desktop.registry.updates import update_changes

    updates, secret_keys = update_changes(record, plan)
    return await servers.update(target, record.id, updates | {"secretKeys": sorted(secret_keys)})
