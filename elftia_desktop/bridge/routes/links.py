"""Install-link channel: ``app:parse-link`` turns an ``elftia://install-mcp`` link into a form's input."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from elftia_desktop.bridge.plumbing import Done, Failed, RouterCore

if TYPE_CHECKING:
    from elftia_desktop.bridge.services import AppServices


class LinkChannels(RouterCore):
    """``app:parse-link``."""

    def parse_link(self, link: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``app:parse-link``: the link's server as an ``McpServerInput`` JSON dict, untrusted.

        Nothing is added or started: the UI opens the add form filled in with the result. A malformed
        link fails with ``InstallLinkError`` and a message saying what is wrong with it.
        """
        data, refused = self._validated("app:parse-link", "InstallLinkInput", {"link": link}, on_error)
        if data is None:
            return refused
        text = data.link

        async def work(s: AppServices) -> dict[str, Any]:
            from elftia_desktop.core.install_link import parse_install_link

            return parse_install_link(text).to_json_dict()

        return self._submit("app:parse-link", work, on_done, on_error)
