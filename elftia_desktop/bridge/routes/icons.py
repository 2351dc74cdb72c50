"""Icons channel: the icon of any ``icons`` list (a registry entry's), fetched, kept and drawn like the cards'."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QImage

from elftia_desktop.bridge.icons import rasterize
from elftia_desktop.bridge.pending import Pending
from elftia_desktop.bridge.plumbing import Route
from elftia_desktop.core.icons import IconError

if TYPE_CHECKING:
    from elftia_desktop.bridge.services import AppServices


class IconRoute(Route):
    """``icons:image``: Browse's row icons, through the service's one icon fetcher and its cache."""

    def image(self, icons: list[dict[str, Any]]) -> Pending[QImage]:
        """``icons:image``: the icon to show of ``icons`` (https or data only, size-limited) as an image."""
        chosen = [dict(icon) for icon in icons]

        async def work(s: AppServices) -> QImage:
            """``icons:image`` on the service loop: keep the icon, then draw it off the loop."""
            path: Path = await s.mcp.icons.keep(chosen)
            image = await asyncio.to_thread(rasterize, path)
            if image is None:
                raise IconError("the icon could not be drawn")
            return image

        return self._core.submit("icons:image", work)
