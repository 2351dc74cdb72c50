"""Issue 33: the bubblewrap card on the Dependencies page: an Install button as root with apt-get, the
exact ``sudo`` command otherwise (the machine's facts are passed in: root and the package managers)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.routes.dependencies import runtime_view
from elftia_desktop.core.models import DependencyCheckResult
from elftia_desktop.deps import system_package
from elftia_desktop.deps.overview import RuntimeRow
from elftia_desktop.deps.requirements import runtime_for
from elftia_desktop.ui.widgets.runtime_card import RuntimeCard

pytestmark = pytest.mark.skipif(shutil.which("apt-get") is None, reason="the root plan needs apt-get")


def card_for(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, uid: int, shot: Path) -> RuntimeCard:
    """The card of a missing bubblewrap, checked as user ``uid``; its picture saved to ``shot``."""
    runtime = runtime_for("bwrap")
    assert runtime is not None
    monkeypatch.setattr(system_package, "user_id", lambda: uid)
    can = system_package.plan_here(runtime).argv is not None
    check = DependencyCheckResult(command="bwrap", installed=False, meets_minimum=False, installable=can)
    card = RuntimeCard(runtime_view(RuntimeRow(runtime, check, managed=False, can_install=can)))
    qtbot.addWidget(card)
    card.resize(900, 300)
    card.show()
    card.how_button.setChecked(True)
    qtbot.waitUntil(card.instructions.isVisible)
    card.grab().save(str(shot))
    return card


def test_as_root_the_card_offers_install_with_apt_get(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    card = card_for(qtbot, monkeypatch, 0, tmp_path / "root.png")
    assert card.install_button.isVisible() and "package manager" in card.install_button.toolTip()
    assert "the app runs apt-get install -y bubblewrap " in card.instructions.text()


def test_without_root_the_card_says_the_sudo_command_and_has_no_install(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    card = card_for(qtbot, monkeypatch, 1000, tmp_path / "user.png")
    assert not card.install_button.isVisible()
    assert "sudo apt-get install bubblewrap" in card.instructions.text()
    assert "Press Install" not in card.instructions.text()
