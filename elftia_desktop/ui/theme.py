"""Colours and the application style sheet, derived from the system palette (light or dark)."""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QColor, QPainter, QPalette
from PySide6.QtWidgets import QApplication, QProxyStyle, QStyle, QStyleOption, QWidget

STATE_COLORS = {
    "connected": "#2e9d57",
    "connecting": "#d08b16",
    "disconnected": "#8a8f98",
    "error": "#d64545",
    "auth_required": "#c0622a",
    "untrusted": "#d08b16",
}
ACCENT = "#4f6bed"


def is_dark(palette: QPalette | None = None) -> bool:
    """True when the window background is dark."""
    palette = palette or QApplication.palette()
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def muted_text_color(palette: QPalette | None = None) -> QColor:
    """A secondary text colour readable on the window background (≥ 4.5:1 with the app's palettes)."""
    palette = palette or QApplication.palette()
    text = palette.color(QPalette.ColorRole.WindowText)
    window = palette.color(QPalette.ColorRole.Window)
    return QColor(
        (text.red() * 2 + window.red()) // 3,
        (text.green() * 2 + window.green()) // 3,
        (text.blue() * 2 + window.blue()) // 3,
    )


def error_text_color(palette: QPalette | None = None) -> str:
    """Red for error words in running text, light enough to read on a dark background."""
    return "#ff8a8a" if is_dark(palette) else "#c62f2f"


def card_colors(palette: QPalette | None = None) -> tuple[str, str]:
    """Background and border of cards for the current palette."""
    if is_dark(palette):
        return "#2b2d31", "#3c3f45"
    return "#ffffff", "#dfe2e8"


NOTICE_KINDS = ("info", "success", "warning", "error")
_NOTICE = {
    # kind: (light bg, light border, dark bg, dark border); text is the palette's window text
    "info": ("#eaf0ff", "#b9c8f5", "#243056", "#3b4c86"),
    "success": ("#e6f6ec", "#a9dcbc", "#1f3a2a", "#2f6244"),
    "warning": ("#fff4d6", "#f0d48a", "#4a3b12", "#7a6424"),
    "error": ("#fdeaea", "#f1b1b1", "#4a2222", "#7d3737"),
}


def notice_colors(kind: str, palette: QPalette | None = None) -> tuple[str, str, str]:
    """Background, border and text colour of a notice of ``kind`` (info, success, warning, error)."""
    palette = palette or QApplication.palette()
    light_bg, light_border, dark_bg, dark_border = _NOTICE.get(kind, _NOTICE["info"])
    dark = is_dark(palette)
    text = palette.color(QPalette.ColorRole.WindowText).name()
    return (dark_bg, dark_border, text) if dark else (light_bg, light_border, text)


def contrast_ratio(first: str | QColor, second: str | QColor) -> float:
    """The WCAG 2 contrast ratio of two colours (1 to 21)."""

    def luminance(color: QColor) -> float:
        """The relative luminance of ``color``."""

        def channel(value: float) -> float:
            """One sRGB channel, linearised."""
            return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

        return 0.2126 * channel(color.redF()) + 0.7152 * channel(color.greenF()) + 0.0722 * channel(color.blueF())

    high, low = sorted((luminance(QColor(first)), luminance(QColor(second))), reverse=True)
    return (high + 0.05) / (low + 0.05)


def scrollbar_colors(palette: QPalette | None = None) -> tuple[str, str, str]:
    """``(track, handle, handle under the pointer)``: the handle stands out from its track the way the
    page's text does from its background (darker in light, lighter in dark), never the other way round."""
    if is_dark(palette):
        return "#26282c", "#5b5f68", "#737882"
    return "#eef0f4", "#b3b8c2", "#9499a3"


def _scrollbar_sheet(palette: QPalette | None) -> str:
    track, handle, hover = scrollbar_colors(palette)
    return f"""
    QScrollBar:vertical {{ background: {track}; width: 12px; margin: 0; border: none; }}
    QScrollBar:horizontal {{ background: {track}; height: 12px; margin: 0; border: none; }}
    QScrollBar::handle {{ background: {handle}; border-radius: 4px; margin: 2px; }}
    QScrollBar::handle:vertical {{ min-height: 24px; }}
    QScrollBar::handle:horizontal {{ min-width: 24px; }}
    QScrollBar::handle:hover {{ background: {hover}; }}
    QScrollBar::add-line, QScrollBar::sub-line {{ width: 0; height: 0; border: none; background: none; }}
    QScrollBar::add-page, QScrollBar::sub-page {{ background: none; }}
    """


def style_sheet(palette: QPalette | None = None) -> str:
    """The app-wide style sheet for the current palette."""
    card_bg, card_border = card_colors(palette)
    dark = is_dark(palette)
    sidebar_bg = "#1f2023" if dark else "#eef0f4"
    page_bg = "#232428" if dark else "#f7f8fa"
    muted = muted_text_color(palette).name()
    greyed = (palette or QApplication.palette()).color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText)
    disabled = greyed.name()
    selected = "#34373d" if dark else "#dde3f7"
    # a disabled main button: a paler accent on light, a dimmer one on dark (a paler one outshone the enabled)
    primary_off, primary_off_text = ("#3a4272", disabled) if dark else ("#9aa7e6", "white")
    warning_bg, warning_border, warning_text = notice_colors("warning", palette)
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
    QPushButton#ChangedTools {{ background: {warning_bg}; border: 1px solid {warning_border};
        border-radius: 6px; padding: 4px 10px; text-align: left; color: {warning_text}; }}
    QLabel#Banner, QFrame#Banner {{ background: {warning_bg}; border: 1px solid {warning_border};
        border-radius: 8px; color: {warning_text}; }}
    QLabel#EmptyTitle {{ font-size: 14pt; font-weight: 600; }}
    QPushButton {{ padding: 4px 12px; border-radius: 6px; border: 1px solid {card_border};
        background: {card_bg}; min-height: 20px; }}
    QPushButton:hover {{ border-color: {ACCENT}; }}
    QPushButton:focus {{ border-color: {ACCENT}; }}
    QPushButton:disabled {{ color: {disabled}; background: transparent; border-style: dashed; }}
    QPushButton#Primary {{ background: {ACCENT}; color: white; border: none; border-radius: 6px;
        padding: 6px 14px; font-weight: 600; }}
    QPushButton#Primary:hover {{ background: #3f59d6; }}
    QPushButton#Primary:disabled {{ background: {primary_off}; color: {primary_off_text}; }}
    QLabel#FieldError {{ color: {error_text_color(palette)}; }}
    QTreeWidget#DataTable::item, QListWidget#ServerChecklist::item {{ padding: 3px 4px; }}
    """ + _scrollbar_sheet(palette)


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


class _ThemeState:
    """What is in force: the chosen mode, the system's own palette, and how often the theme was applied."""

    def __init__(self) -> None:
        self.mode = "system"
        self.system_palette: QPalette | None = None
        self.palette: QPalette | None = None
        self.fusion = False
        self.style: QStyle | None = None
        self.applications = 0
        self.watching = False


_state = _ThemeState()


def fixed_palette(mode: str) -> QPalette:
    """The app's own ``light`` or ``dark`` palette (any other mode: dark when ``mode == "dark"``)."""
    palette = QPalette()
    for role, color in (_DARK if mode == "dark" else _LIGHT).items():
        palette.setColor(role, QColor(color))
    disabled = "#7a7f88" if mode == "dark" else "#a0a4ab"
    for role in (QPalette.ColorRole.ButtonText, QPalette.ColorRole.Text, QPalette.ColorRole.WindowText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(disabled))
    return palette


def theme_mode() -> str:
    """The mode in force: ``system``, ``light`` or ``dark``."""
    return _state.mode


def theme_applications() -> int:
    """How many times the theme was put in force in this process (each a real change)."""
    return _state.applications


def _target_palette(app: QApplication, mode: str) -> QPalette:
    if mode in ("light", "dark"):
        return fixed_palette(mode)
    scheme = app.styleHints().colorScheme()
    if scheme == Qt.ColorScheme.Dark:
        return fixed_palette("dark")
    if scheme == Qt.ColorScheme.Light:
        return fixed_palette("light")
    assert _state.system_palette is not None
    return _state.system_palette


def set_theme_mode(app: QApplication, mode: str) -> bool:
    """Use the ``light`` or ``dark`` palette, or follow the system (``system``); True when it changed.

    The palette and the style sheet are set only when they differ from what is in force, so asking for
    the mode already shown costs nothing, and a real change restyles the widgets once.
    """
    if _state.system_palette is None:
        _state.system_palette = QPalette(app.palette())
    _state.mode = mode
    if not _state.watching:
        _state.watching = True
        app.styleHints().colorSchemeChanged.connect(lambda _scheme: _follow_system(app))
    target = _target_palette(app, mode)
    changed = _state.palette is None or _state.palette != target
    if changed:
        _state.palette = QPalette(target)
        app.setPalette(target)
    changed = _restyle(app) or changed
    if changed:
        _state.applications += 1
    return changed


def _follow_system(app: QApplication) -> None:
    """The desktop switched between light and dark: follow it when the mode is ``system``."""
    if _state.mode == "system":
        set_theme_mode(app, "system")


def apply_theme(app: QApplication) -> bool:
    """Use the Fusion style (it follows the palette everywhere) and the style sheet for the palette.

    Returns True when anything changed (then the theme counts as applied once).
    """
    changed = _restyle(app)
    if changed:
        _state.applications += 1
    return changed


class _FusionStyle(QProxyStyle):
    """Fusion, with a check box outline that shows on a dark list.

    Fusion outlines a box in a darker shade of the window colour, which on the dark palette is the
    colour of a list's background: the boxes of a checkable list disappeared.
    """

    def __init__(self) -> None:
        super().__init__("Fusion")

    def drawPrimitive(
        self, element: QStyle.PrimitiveElement, option: QStyleOption, painter: QPainter, widget: QWidget | None = None
    ) -> None:
        """Fusion's drawing; a dark palette's check boxes get a visible outline on top."""
        super().drawPrimitive(element, option, painter, widget)
        if element == QStyle.PrimitiveElement.PE_IndicatorCheckBox and is_dark(option.palette):
            painter.save()
            painter.translate(0.5, 0.5)  # as Fusion draws its outline: on the pixel, not between two
            painter.setPen(QColor(STATE_COLORS["disconnected"]))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(option.rect.adjusted(0, 0, -1, -1))
            painter.restore()


def _restyle(app: QApplication) -> bool:
    changed = False
    if not _state.fusion:  # once a style sheet is set, app.style() is a nameless proxy around this one
        _state.fusion = True
        _state.style = _FusionStyle()  # kept here: the application does not own a style set from Python
        app.setStyle(_state.style)
        changed = True
    sheet = style_sheet(app.palette())
    if app.styleSheet() != sheet:
        app.setStyleSheet(sheet)
        changed = True
    return changed


THEME_KEY = "appearance/theme"
"""Where the window's settings file keeps the last theme in force, so the next start begins with it."""


def saved_theme(settings: QSettings) -> str:
    """The theme mode last put in force (``system`` when none was saved)."""
    value = settings.value(THEME_KEY, "system")
    return value if value in ("system", "light", "dark") else "system"
