"""Icons as images the UI can show: a kept icon file drawn at a fixed size, off the UI thread.

An SVG is drawn by ``QSvgRenderer`` (Qt's SVG renderer runs no scripts and loads nothing from
elsewhere); a PNG, JPEG, WebP or GIF is read by ``QImage``. Both produce a ``QImage`` (safe to
make outside the UI thread), which the UI turns into a pixmap.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, QRectF, Qt
from PySide6.QtGui import QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ICON_PIXELS = 40
"""The side of the square an icon is drawn into (cards show it at half that, sharp on HiDPI)."""


def rasterize(path: Path, size: int = ICON_PIXELS) -> QImage | None:
    """The icon at ``path`` drawn into a ``size`` x ``size`` image (aspect kept); None when it cannot be read."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if path.suffix == ".svg":
        renderer = QSvgRenderer(QByteArray(data))
        if not renderer.isValid():
            return None
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        renderer.setAspectRatioMode(Qt.AspectRatioMode.KeepAspectRatio)
        renderer.render(painter, QRectF(0, 0, size, size))
        painter.end()
        return image
    image = QImage.fromData(data)
    if image.isNull():
        return None
    return image.scaled(size, size, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation)
