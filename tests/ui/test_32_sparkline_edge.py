"""Issue 32: the sparkline's bars start at its left edge (by the label before it), not in the middle."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.signals import ToolCalled
from elftia_desktop.ui.widgets.sparkline import MAX_BARS, Sparkline, outcome_color


def test_few_calls_are_drawn_from_the_left_edge(qtbot: QtBot) -> None:
    line = Sparkline()
    qtbot.addWidget(line)
    line.set_calls([ToolCalled("s", "t", "ok", 10.0, 0.0), ToolCalled("s", "t", "error", 50.0, 1.0)])
    image = line.grab().toImage()
    bottom = image.height() - 1
    step = line.width() // MAX_BARS
    assert image.pixelColor(0, bottom).name() == outcome_color("ok").name()  # the oldest, at the edge
    assert image.pixelColor(step, bottom).name() == outcome_color("error").name()
    assert image.pixelColor(line.width() - 2, bottom).name() != outcome_color("ok").name()  # the rest is empty
