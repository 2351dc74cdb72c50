"""Discover's icons: the server's (``serverInfo.icons``) before its name, each tool's before the tool's name.

They come through ``router.icons`` (the cards' fetch, checks and cache: https or data only,
size-limited, SVG drawn without scripts); a label stays hidden until its icon is drawn, and an
icon that is refused or cannot be drawn leaves it hidden.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import QLabel, QWidget

if TYPE_CHECKING:
    from elftia_desktop.bridge.router import McpRouter

ICON_PIXELS = 20
"""The side an icon is shown at (drawn at twice that: sharp on HiDPI), as on the server cards."""


def icon_label(parent: QWidget) -> QLabel:
    """A hidden square label for an icon."""
    label = QLabel(parent)
    label.setFixedSize(ICON_PIXELS, ICON_PIXELS)
    label.hide()
    return label


def show_icon(label: QLabel, image: QImage, name: str) -> None:
    """Show ``image`` in ``label`` at :data:`ICON_PIXELS`, sharp on HiDPI."""
    pixmap = QPixmap.fromImage(image)
    pixmap.setDevicePixelRatio(max(1.0, image.width() / ICON_PIXELS))
    label.setPixmap(pixmap)
    label.setAccessibleName(f"Icon of {name}")
    label.show()


def request_icon(
    router: McpRouter, owner: QObject, label: QLabel, icons: Sequence[Mapping[str, object]], name: str
) -> None:
    """Ask for the icon of ``name`` (a tool or the server) from its listed ``icons``; ``owner`` receives it."""
    if not icons:
        return

    def drawn(image: QImage) -> None:
        """Show the drawn icon on the label."""
        show_icon(label, image, name)

    router.icons.image([dict(icon) for icon in icons]).then(owner, drawn)
