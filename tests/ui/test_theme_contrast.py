"""Every notice style, and the card's last-call badge, is readable (WCAG AA, ≥ 4.5:1) in light and dark,
and a notice shown before a theme switch takes the new theme's colours."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QListWidget, QListWidgetItem, QPlainTextEdit, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from elftia_desktop.ui.theme import (
    NOTICE_KINDS,
    card_colors,
    contrast_ratio,
    error_text_color,
    fixed_palette,
    muted_text_color,
    notice_colors,
    set_theme_mode,
)
from elftia_desktop.ui.widgets.notice_bar import NoticeBar

AA = 4.5


@pytest.fixture
def app_theme(qapp: QApplication) -> Iterator[QApplication]:
    """Whatever a test does to the theme, the next one starts with the system palette."""
    yield qapp
    set_theme_mode(qapp, "system")


def test_contrast_ratio_matches_wcag() -> None:
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast_ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


@pytest.mark.parametrize("mode", ["light", "dark"])
@pytest.mark.parametrize("kind", NOTICE_KINDS)
def test_every_notice_style_is_readable(mode: str, kind: str) -> None:
    background, _border, text = notice_colors(kind, fixed_palette(mode))
    assert contrast_ratio(text, background) >= AA, f"{kind} notice in {mode}: {text} on {background}"


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_card_texts_are_readable(mode: str) -> None:
    palette = fixed_palette(mode)
    card_background, _ = card_colors(palette)
    muted = muted_text_color(palette)
    assert contrast_ratio(muted, card_background) >= AA, f"last-call badge in {mode}"
    assert contrast_ratio(error_text_color(palette), card_background) >= AA, f"error word in {mode}"
    window = palette.color(QPalette.ColorRole.Window)
    assert contrast_ratio(muted, window) >= AA, f"muted text on the window in {mode}"


def test_a_shown_notice_follows_a_theme_switch(qtbot: QtBot, app_theme: QApplication) -> None:
    set_theme_mode(app_theme, "light")
    bar = NoticeBar()
    qtbot.addWidget(bar)
    bar.show_message("No keyring: secrets are kept in a file only you can read.", "warning")
    bar.show()
    assert bar.colors == notice_colors("warning", fixed_palette("light"))
    set_theme_mode(app_theme, "dark")
    qtbot.waitUntil(lambda: bar.colors == notice_colors("warning", fixed_palette("dark")))
    background, _, text = bar.colors
    assert contrast_ratio(text, background) >= AA


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_a_scrollbar_handle_stands_out_from_its_track_the_right_way(
    qtbot: QtBot, app_theme: QApplication, mode: str
) -> None:
    """Light: a darker handle on a lighter track (not a white gap in grey); dark: the reverse. Read from pixels."""
    set_theme_mode(app_theme, mode)
    edit = QPlainTextEdit("\n".join(f"line {n}" for n in range(200)))
    qtbot.addWidget(edit)
    edit.resize(300, 200)
    edit.show()
    bar = edit.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    image = bar.grab().toImage()
    column = Counter(QColor(image.pixel(image.width() // 2, y)).lightness() for y in range(image.height()))
    track = column.most_common(1)[0][0]
    handle = max((value for value, count in column.items() if count >= 10), key=lambda value: abs(value - track))
    if mode == "light":
        assert track - handle >= 30, f"a darker handle ({handle}) on a lighter track ({track})"
    else:
        assert handle - track >= 30, f"a lighter handle ({handle}) on a darker track ({track})"


def test_an_unticked_box_in_a_dark_list_shows_its_outline(qtbot: QtBot, app_theme: QApplication) -> None:
    """Fusion outlines a check box in a shade of the window colour; on a dark list (Base) that outline
    vanished (1.04:1), so the Claude panel's, Export's and the agent dialog's boxes could not be seen."""
    set_theme_mode(app_theme, "dark")
    view = QListWidget()
    qtbot.addWidget(view)
    item = QListWidgetItem("Clock")
    item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
    item.setCheckState(Qt.CheckState.Unchecked)
    view.addItem(item)
    view.resize(200, 60)
    view.show()
    qtbot.waitExposed(view)
    image = view.viewport().grab().toImage()
    background = view.palette().color(QPalette.ColorRole.Base)
    row = view.visualItemRect(item)
    strongest = max(
        contrast_ratio(image.pixelColor(x, y), background)
        for x in range(row.left(), row.left() + row.height())
        for y in range(row.top(), row.bottom())
    )
    assert strongest >= 3.0, f"the box stands out only {strongest:.2f}:1 from the list"


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_a_disabled_main_button_stands_out_less_than_an_enabled_one(
    qtbot: QtBot, app_theme: QApplication, mode: str
) -> None:
    """On the dark window the disabled Save and Push were a lighter blue than the enabled ones: they looked
    more pressable than a button that works."""
    set_theme_mode(app_theme, mode)
    holder = QWidget()
    qtbot.addWidget(holder)
    enabled, disabled = QPushButton("Save", holder), QPushButton("Save", holder)
    for button, x in ((enabled, 0), (disabled, 120)):
        button.setObjectName("Primary")
        button.move(x, 0)
        button.resize(100, 32)
    disabled.setEnabled(False)
    holder.resize(240, 40)
    holder.show()
    qtbot.waitExposed(holder)
    window = holder.palette().color(QPalette.ColorRole.Window)
    on, off = (contrast_ratio(b.grab().toImage().pixelColor(6, 16), window) for b in (enabled, disabled))
    assert off < on, f"in {mode} a disabled main button stands out {off:.2f}:1, an enabled one {on:.2f}:1"
