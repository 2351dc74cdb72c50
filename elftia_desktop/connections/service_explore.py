"""The explore half of ``McpService``: a prompt or a resource as JSON for the window, cancel a call.

The SDK-typed ``get_prompt`` / ``read_resource`` (``service_features``, which the gateway passes on)
are converted here into JSON dicts with the protocol's field names (``messages`` of a prompt,
``contents`` of a resource), so no SDK type reaches the bridge.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from elftia_desktop.connections import listing
from elftia_desktop.connections.service_features import FeaturesMixin

if TYPE_CHECKING:
    from elftia_desktop.connections.live_calls import LiveCalls


class ExploreMixin(FeaturesMixin):
    """prompt_json / resource_json / cancel_call."""

    _live: LiveCalls

    async def prompt_json(self, server_id: str, name: str, arguments: dict[str, str]) -> dict[str, Any]:
        """``prompts/get``: ``{description?, messages: [{role, content}]}``."""
        return listing.as_dict(await self.get_prompt(server_id, name, arguments or None))

    async def resource_json(self, server_id: str, uri: str) -> dict[str, Any]:
        """``resources/read``: ``{contents: [{uri, mimeType?, text | blob}]}``."""
        return listing.as_dict(await self.read_resource(server_id, uri))

    def cancel_call(self, call_id: str) -> bool:
        """Cancel the running tool call ``call_id`` (the server is told); False when none runs (sync)."""
        return self._live.cancel(call_id)
