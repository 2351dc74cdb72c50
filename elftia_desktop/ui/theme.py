"""Colours and the application style sheet, derived from the system palette (light or dark)."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

STATE_COLORS = {
    "connected": "#2e9d57",
    "connecting": "#d08b16",
    "disconnected": "#8a8f98",
    "error": "#d64545",
    "auth_required": "#c0622a",
}
ACCENT = "#4f6bed"


def is_dark(palette: QPalette | None = None) -> bool:
    """True when the window background is dark."""
    palette = palette or QApplication.palette()
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def muted_text_color(palette: QPalette | None = None) -> QColor:
    """A secondary text colour readable on the window background."""
    palette = palette or QApplication.palette()
    text = palette.color(QPalette.ColorRole.WindowText)
    window = palette.color(QPalette.ColorRole.Window)
    return QColor(
        (text.red() * 3 + window.red() * 2) // 5,
        (text.green() * 3 + window.green() * 2) // 5,
        (text.blue() * 3 + window.blue() * 2) // 5,
    )


def card_colors(palette: QPalette | None = None) -> tuple[str, str]:
    """Background and border of cards for the current palette."""
    if is_dark(palette):
        return "#2b2d31", "#3c3f45"
    return "#ffffff", "#dfe2e8"


def style_sheet(palette: QPalette | None = None) -> str:
    """The app-wide style sheet for the current palette."""
    card_bg, card_border = card_colors(palette)
    dark = is_dark(palette)
    sidebar_bg = "#1f2023" if dark else "#eef0f4"
    page_bg = "#232428" if dark else "#f7f8fa"
    muted = muted_text_color(palette).name()
    selected = "#34373d" if dark else "#dde3f7"
    return f"""
    QWidget#Sidebar {{ background: {sidebar_bg}; }}
    QListWidget#SidebarList {{ background: transparent; border: none; font-size: 10.5pt; outline: 0; }}
    QListWidget#SidebarList::item {{ padding: 8px 10px; border-radius: 6px; margin: 2px 6px; }}
    QListWidget#SidebarList::item:selected {{ background: {selected}; color: palette(window-text); }}
    QWidget#Page {{ background: {page_bg}; }}
    QScrollArea#CardScroll, QWidget#CardHolder {{ background: {page_bg}; border: none; }}
    QLabel#PageTitle {{ font-size: 16pt; font-weight: 600; }}
    QLabel#Muted, QLabel#CardSubtitle {{ color: {muted}; }}
    QFrame#Card {{ background: {card_bg}; border: 1px solid {card_border}; border-radius: 10px; }}
    QLabel#CardTitle {{ font-size: 11.5pt; font-weight: 600; }}
    QLabel#Chip {{ border: 1px solid {card_border}; border-radius: 8px; padding: 1px 8px; color: {muted}; }}
    QPushButton#ChangedTools {{ background: {"#4a3b12" if dark else "#fff4d6"};
        border: 1px solid {STATE_COLORS["connecting"]}; border-radius: 6px; padding: 4px 10px; text-align: left; }}
    QFrame#Banner {{ background: {"#4a3b12" if dark else "#fff4d6"}; border: 1px solid
        {"#7a6424" if dark else "#f0d48a"}; border-radius: 8px; }}
    QLabel#EmptyTitle {{ font-size: 14pt; font-weight: 600; }}
    QPushButton {{ padding: 4px 12px; border-radius: 6px; border: 1px solid {card_border};
        background: {card_bg}; min-height: 20px; }}
    QPushButton:hover {{ border-color: {ACCENT}; }}
    QPushButton:focus {{ border-color: {ACCENT}; }}
    QPushButton:disabled {{ color: {muted}; }}
    QPushButton#Primary {{ background: {ACCENT}; color: white; border: none; border-radius: 6px;
        padding: 6px 14px; font-weight: 600; }}
    QPushButton#Primary:hover {{ background: #3f59d6; }}
    QPushButton#Primary:disabled {{ background: #9aa7e6; }}
    QLabel#FieldError {{ color: {STATE_COLORS["error"]}; }}
    QTreeWidget#DataTable::item, QListWidget#ServerChecklist::item {{ padding: 3px 4px; }}
    """


_DARK = {
    QPalette.ColorRole.Window: "#2b2d31",
    QPalette.ColorRole.WindowText: "#e6e6e6",
    QPalette.ColorRole.Base: "#1f2023",
    QPalette.ColorRole.AlternateBase: "#26282c",
    QPalette.ColorRole.Text: "#e6e6e6",
    QPalette.ColorRole.Button: "#34373d",
    QPalette.ColorRole.ButtonText: "#e6e6e6",
    QPalette.ColorRole.Highlight: ACCENT,
    QPalette.ColorRole.HighlightedText: "#ffffff",
    QPalette.ColorRole.ToolTipBase: "#34373d",
    QPalette.ColorRole.ToolTipText: "#e6e6e6",
    QPalette.ColorRole.PlaceholderText: "#8a8f98",
    QPalette.ColorRole.Link: "#8ea2ff",
}
_LIGHT = {
    QPalette.ColorRole.Window: "#efeff1",
    QPalette.ColorRole.WindowText: "#1d1f23",
    QPalette.ColorRole.Base: "#ffffff",
    QPalette.ColorRole.AlternateBase: "#f4f5f7",
    QPalette.ColorRole.Text: "#1d1f23",
    QPalette.ColorRole.Button: "#f4f5f7",
    QPalette.ColorRole.ButtonText: "#1d1f23",
    QPalette.ColorRole.Highlight: ACCENT,
    QPalette.ColorRole.HighlightedText: "#ffffff",
    QPalette.ColorRole.ToolTipBase: "#ffffdc",
    QPalette.ColorRole.ToolTipText: "#1d1f23",
    QPalette.ColorRole.PlaceholderText: "#8a8f98",
    QPalette.ColorRole.Link: ACCENT,
}
_system_palette: QPalette | None = None


def fixed_palette(mode: str) -> QPalette:
    """The app's own ``light`` or ``dark`` palette (any other mode: dark when ``mode == "dark"``)."""
    palette = QPalette()
    for role, color in (_DARK if mode == "dark" else _LIGHT).items():
        palette.setColor(role, QColor(color))
    disabled = "#7a7f88" if mode == "dark" else "#a0a4ab"
    for role in (QPalette.ColorRole.ButtonText, QPalette.ColorRole.Text, QPalette.ColorRole.WindowText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(disabled))
    return palette


def set_theme_mode(app: QApplication, mode: str) -> None:
    """Use the ``light`` or ``dark`` palette, or the system's (``system``), and restyle."""
    global _system_palette
    if _system_palette is None:
        _system_palette = QPalette(app.palette())
    target = _system_palette if mode == "system" else fixed_palette(mode)
    if app.palette() != target:
        app.setPalette(target)
    apply_theme(app)


def apply_theme(app: QApplication) -> None:
    """Use the Fusion style (it follows the palette everywhere) and the style sheet for the palette."""
    if app.style().name().lower() != "fusion":
        app.setStyle("Fusion")
    app.setStyleSheet(style_sheet(app.palette()))
