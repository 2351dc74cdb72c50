"""Issue 32: emoji in server names and tool texts render: ``dev.py`` installs an emoji font with the Qt runtime."""

from __future__ import annotations

from tests.packaging.test_dev_run_qt_libraries import load_dev


def test_the_window_packages_include_an_emoji_font() -> None:
    packages = load_dev().QT_RUNTIME_PACKAGES
    assert "fonts-noto-color-emoji" in packages
    assert "fonts-dejavu-core" in packages  # the text font stays
