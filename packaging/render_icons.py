"""Render ``resources/icons/elftia-desktop.svg`` to the PNG sizes a desktop needs (16 … 512).

    .venv/bin/python packaging/render_icons.py

Uses Qt's own SVG renderer (QtSvg ships with PySide6-Essentials), so no other tool is needed.
The PNGs are committed; run this again after changing the SVG.
"""

from __future__ import annotations

import sys
from pathlib import Path

ICONS = Path(__file__).resolve().parents[1] / "resources" / "icons"
SOURCE = ICONS / "elftia-desktop.svg"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def render(size: int) -> Path:
    """Render the SVG at ``size`` x ``size`` pixels into ``elftia-desktop-<size>.png``."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(SOURCE))
    if not renderer.isValid():
        raise SystemExit(f"{SOURCE} is not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    target = ICONS / f"elftia-desktop-{size}.png"
    if not image.save(str(target)):
        raise SystemExit(f"could not write {target}")
    return target


def main() -> int:
    """Render every size; prints the files written."""
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    for size in SIZES:
        print(render(size).relative_to(ICONS.parents[1]))
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
