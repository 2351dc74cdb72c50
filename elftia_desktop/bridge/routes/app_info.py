"""App channels: presets, the notices found at start, and install links."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from elftia_desktop.bridge.pending import Pending
from elftia_desktop.bridge.plumbing import Route

if TYPE_CHECKING:
    from elftia_desktop.bridge.channels import InstallLinkInput
    from elftia_desktop.bridge.services import AppServices
    from elftia_desktop.core.models import McpServerInput
    from elftia_desktop.core.presets import McpPreset


class AppRoute(Route):
    """``mcp:presets``, ``app:notices``, ``app:parse-link``."""

    def presets(self) -> Pending[list[McpPreset]]:
        """``mcp:presets``: the built-in and official server presets."""

        async def work(_s: AppServices) -> list[McpPreset]:
            """``mcp:presets`` on the service loop."""
            from elftia_desktop.core.presets import load_presets

            return await asyncio.to_thread(load_presets)

        return self._core.submit("mcp:presets", work)

    def notices(self) -> Pending[list[str]]:
        """``app:notices``: problems found at start (config recovered, secrets in a file)."""

        async def work(s: AppServices) -> list[str]:
            """``app:notices`` on the service loop."""
            return list(s.notices)

        return self._core.submit("app:notices", work)

    def parse_link(self, link: str) -> Pending[McpServerInput]:
        """``app:parse-link``: the link's server as an ``McpServerInput``, untrusted.

        Nothing is added or started: the UI opens the add form filled in with the result. A malformed
        link fails with ``InstallLinkError`` and a message saying what is wrong with it.
        """
        from elftia_desktop.bridge.channels import InstallLinkInput

        async def work(_s: AppServices, data: InstallLinkInput) -> McpServerInput:
            """``app:parse-link`` on the service loop."""
            from elftia_desktop.core.install_link import parse_install_link

            return parse_install_link(data.link)

        return self._core.call("app:parse-link", InstallLinkInput, {"link": link}, work)
