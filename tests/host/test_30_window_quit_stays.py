"""Issue 30 follow-up: with start at login on, quitting the window leaves a pool host that stays.

The host started at login hands its pool to the window when the window opens; apps given the HTTP
URL would find nothing once the window quits, so the window then starts ``daemon run --stay``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from elftia_desktop.platform import autostart
from tests.host.host_helpers import host_status
from tests.ui.test_pool_host_window import WAIT, hosting_router

pytestmark = [pytest.mark.daemon, pytest.mark.skipif(os.name == "nt", reason="the XDG autostart file")]


def test_quitting_the_window_with_start_at_login_on_leaves_a_host_that_stays(
    qtbot: QtBot, tmp_path: Path, isolated_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    assert autostart.enable(autostart.Machine.current()).enabled  # in this test's home
    with hosting_router() as (router, _loop):
        with qtbot.waitSignal(router.signals.poolChanged, timeout=WAIT, check_params_cb=lambda s: s.hosting):
            router.pool.refresh()
        qtbot.waitUntil(lambda: (s := host_status()) is not None and s["hostedBy"] == "window", timeout=WAIT)
    # no app was attached: without start at login no daemon would follow the window
    qtbot.waitUntil(lambda: (s := host_status()) is not None and s["hostedBy"] == "daemon", timeout=WAIT)
    status = host_status()
    assert status is not None and status["stays"] is True and status["dataDir"] == str(isolated_data_dir)
