"""App channels: presets and the notices found at start."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from elftia_desktop.bridge.plumbing import Done, Failed, RouterCore

if TYPE_CHECKING:
    from elftia_desktop.bridge.services import AppServices


class AppChannels(RouterCore):
    """``mcp:presets``, ``app:notices``."""

    def presets(self, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:presets``: the built-in and official server presets as JSON dicts."""

        async def work(s: AppServices) -> list[dict[str, Any]]:
            from elftia_desktop.core.presets import load_presets

            presets = await asyncio.to_thread(load_presets)
            return [p.model_dump(mode="json", by_alias=True, exclude_none=True) for p in presets]

        return self._submit("mcp:presets", work, on_done, on_error)

    def notices(self, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``app:notices``: problems found at start (config recovered, secrets in a file)."""

        async def work(s: AppServices) -> list[str]:
            return list(s.notices)

        return self._submit("app:notices", work, on_done, on_error)
