"""The host context an MCP App view is given in ``ui/initialize``: our theme as the spec's CSS variables."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import QLocale, QTimeZone
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from elftia_desktop import __version__
from elftia_desktop.ui.theme import card_colors, error_text_color, is_dark, muted_text_color

DISPLAY_MODE = "inline"
"""The one display mode of the Try dialog's view."""


def style_variables(palette: QPalette | None = None) -> dict[str, str]:
    """The spec's standard CSS variables (colours, fonts, radii) from the window's palette and font."""
    palette = palette or QApplication.palette()
    role = QPalette.ColorRole
    card, border = card_colors(palette)
    font = QApplication.font()
    size = font.pointSizeF() if font.pointSizeF() > 0 else 10.0
    return {
        "--color-background-primary": palette.color(role.Base).name(),
        "--color-background-secondary": palette.color(role.Window).name(),
        "--color-background-tertiary": card,
        "--color-background-inverse": palette.color(role.Text).name(),
        "--color-text-primary": palette.color(role.Text).name(),
        "--color-text-secondary": muted_text_color(palette).name(),
        "--color-text-inverse": palette.color(role.Base).name(),
        "--color-text-danger": error_text_color(palette),
        "--color-text-info": palette.color(role.Link).name(),
        "--color-border-primary": border,
        "--color-ring-primary": palette.color(role.Highlight).name(),
        "--font-sans": f'"{font.family()}", sans-serif',
        "--font-mono": "monospace",
        "--font-text-md-size": f"{size * 4 / 3:.0f}px",
        "--border-radius-md": "6px",
    }


def host_context(tool: Mapping[str, Any], width: int, max_height: int) -> dict[str, Any]:
    """``hostContext`` for ``ui/initialize``: the tool, theme, styles, display mode, container size, locale."""
    return {
        "toolInfo": {"tool": dict(tool)},
        "theme": "dark" if is_dark() else "light",
        "styles": {"variables": style_variables()},
        "displayMode": DISPLAY_MODE,
        "availableDisplayModes": [DISPLAY_MODE],
        "containerDimensions": {"width": width, "maxHeight": max_height},
        "locale": QLocale.system().bcp47Name(),
        "timeZone": bytes(QTimeZone.systemTimeZoneId().data()).decode(),
        "userAgent": f"elftia-desktop/{__version__}",
        "platform": "desktop",
    }
