"""The window as the pool host: apps attach to it, the Activity page and the cards show who uses what,
and quitting with apps attached asks, then hands the pool to a daemon (or stops it).

The window side is the real router on the real services built with a ``WindowPool``; the apps are
pretend apps in subprocesses (the SDK's client on ``elftia-mcp serve``) and ``elftia-mcp call``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, QSettings
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.pool_host import PoolClient, PoolState, WindowPool
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.bridge.service_loop import ServiceLoop
from elftia_desktop.bridge.services import AppServices, build_services
from elftia_desktop.host.lease import AlreadyRunning, take_over
from elftia_desktop.host.location import host_location
from elftia_desktop.ui.dialogs.quit_dialog import QuitDialog
from elftia_desktop.ui.main_window import MainWindow
from elftia_desktop.ui.pages.activity_page import QUIT_CHOICE_KEY, ActivityPage
from elftia_desktop.ui.pages.servers_page import McpServersPage
from tests.helpers.live_router import add_servers, server_input
from tests.helpers.pretend_app import PretendApp
from tests.host.host_helpers import cli, elftia_processes, host_status

WAIT = 60_000
pytestmark = [
    pytest.mark.daemon,
    pytest.mark.timeout(240),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc"),
]


def server_pids(module: str, parent: int) -> list[int]:
    """Live children of ``parent`` running ``python -m tests.servers.<module>`` (read from /proc).

    By parent, not by environment: the servers of an in-process host get the login environment
    the test process resolved once, with an earlier test's data folder in it.
    """
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[-1].split()
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[1]) == parent and f"tests.servers.{module}".encode() in cmdline:
            found.append(int(entry.name))
    return found


def daemon_pid() -> int:
    """The pid of the data folder's host (a daemon, after the hand-off)."""
    status = host_status()
    assert status is not None
    return int(status["pid"])


@contextmanager
def hosting_router() -> Iterator[tuple[McpRouter, ServiceLoop[AppServices]]]:
    """A router over services built as the app builds them: the window hosts the pool."""
    pool = WindowPool()
    loop: ServiceLoop[AppServices] = ServiceLoop(lambda: build_services(pool))
    loop.start()
    router = McpRouter(loop, pool=pool)
    try:
        yield router, loop
    finally:
        loop.stop(cleanup=close, timeout=30)


async def close(services: AppServices) -> None:
    """What the app's quit runs on the service loop."""
    await services.close()


@pytest.fixture
def alpha_id(isolated_data_dir: Path) -> str:
    """alpha (the basic test server), trusted."""
    (record,) = add_servers(server_input("alpha", "basic"))
    return record.id


@pytest.fixture
def hosting(qtbot: QtBot, alpha_id: str) -> Iterator[tuple[McpRouter, ServiceLoop[AppServices]]]:
    """The window's router, hosting once its services are built."""
    with hosting_router() as (router, loop):
        with qtbot.waitSignal(router.signals.poolChanged, timeout=WAIT, check_params_cb=lambda s: s.hosting):
            router.pool.refresh()
        yield router, loop


@pytest.fixture
def apps(isolated_data_dir: Path) -> Iterator[list[PretendApp]]:
    """Pretend apps of the test (closed at the end)."""
    started: list[PretendApp] = []
    yield started
    for app in started:
        app.close()


def attach(apps: list[PretendApp], data_dir: Path, name: str) -> PretendApp:
    app = PretendApp(data_dir, name, "1.0")
    apps.append(app)
    return app


def test_apps_attach_to_the_window_and_show_on_the_activity_page_and_the_card(
    qtbot: QtBot,
    hosting: tuple[McpRouter, ServiceLoop[AppServices]],
    apps: list[PretendApp],
    isolated_data_dir: Path,
    alpha_id: str,
    tmp_path: Path,
) -> None:
    router, _loop = hosting
    settings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    servers = McpServersPage(router)
    page = ActivityPage(router, settings, lambda i: servers.record(i).name if servers.record(i) else i)
    for widget in (servers, page):
        qtbot.addWidget(widget)
        widget.show()
    qtbot.waitUntil(lambda: alpha_id in servers.cards, timeout=WAIT)
    assert not page.table.isVisible() and page.empty.isVisible()

    claude = attach(apps, isolated_data_dir, "Claude Code")
    assert claude.call("alpha__echo", {"text": "hi"}) == "RESULT hi"
    qtbot.waitUntil(lambda: page.table.rowCount() == 1 and page.table.item(0, 4).text() == "alpha", timeout=WAIT)
    cells = [page.table.item(0, column).text() for column in range(page.table.columnCount())]
    assert cells[0] == "Claude Code 1.0" and cells[1] == "gateway · every active server"
    assert "1 app attached" in page.summary.text()
    card = servers.cards[alpha_id]
    qtbot.waitUntil(lambda: card.used_by.isVisible(), timeout=WAIT)
    assert card.used_by.full_text == "Used by Claude Code"

    called = cli(isolated_data_dir, "call", "alpha", "echo", "--args", '{"text": "from a shell"}')
    assert called.returncode == 0 and "from a shell" in called.stdout
    qtbot.waitUntil(lambda: len(router.activity.calls(alpha_id)) == 2, timeout=WAIT)
    assert [c.caller for c in router.activity.calls(alpha_id)] == ["Claude Code", "elftia-mcp"]
    status = host_status()
    assert status is not None and status["hostedBy"] == "window"
    assert len(server_pids("basic", os.getpid())) == 1  # the app, the CLI and the window share it

    stop = cli(isolated_data_dir, "daemon", "stop")
    assert stop.returncode == 1 and "quit the window to stop it" in stop.stdout
    claude.close()
    qtbot.waitUntil(lambda: page.empty.isVisible() and not card.used_by.isVisible(), timeout=WAIT)


def test_quitting_with_an_app_attached_hands_the_pool_to_a_daemon(
    qtbot: QtBot, alpha_id: str, apps: list[PretendApp], isolated_data_dir: Path
) -> None:
    with hosting_router() as (router, loop):
        with qtbot.waitSignal(router.signals.poolChanged, timeout=WAIT, check_params_cb=lambda s: s.hosting):
            router.pool.refresh()
        claude = attach(apps, isolated_data_dir, "Claude Code")
        assert claude.call("alpha__echo", {"text": "before"}) == "RESULT before"
        window_servers = server_pids("basic", os.getpid())
        assert len(window_servers) == 1
        done: list[Any] = []
        router.pool.prepare_quit(True).then(router.signals, done.append, done.append)
        qtbot.waitUntil(lambda: bool(done), timeout=WAIT)
        loop.stop(cleanup=close, timeout=30)  # as the app's quit does
    qtbot.waitUntil(lambda: (s := host_status()) is not None and s["hostedBy"] == "daemon", timeout=WAIT)
    assert server_pids("basic", os.getpid()) == []  # the window's servers stopped before the daemon started
    assert claude.call("alpha__echo", {"text": "after"}) == "RESULT after"
    assert len(server_pids("basic", daemon_pid())) == 1
    claude.close()
    assert cli(isolated_data_dir, "daemon", "stop").returncode == 0
    qtbot.waitUntil(lambda: not elftia_processes(isolated_data_dir), timeout=WAIT)


def test_quit_asks_naming_the_apps_and_their_servers_and_stop_ends_hosting(
    qtbot: QtBot,
    hosting: tuple[McpRouter, ServiceLoop[AppServices]],
    apps: list[PretendApp],
    isolated_data_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    router, loop = hosting
    quits: list[bool] = []
    monkeypatch.setattr(QCoreApplication, "quit", lambda: quits.append(True))
    window = MainWindow(router, QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: bool(window.servers_page.cards), timeout=WAIT)  # the names the dialog will use
    gemini = attach(apps, isolated_data_dir, "Gemini CLI")
    assert gemini.call("alpha__add", {"a": 1, "b": 2}).startswith("RESULT")
    qtbot.waitUntil(
        lambda: [(c.name, len(c.servers)) for c in router.pool.state.users] == [("Gemini CLI", 1)], timeout=WAIT
    )

    window.request_quit()
    dialog = window.findChild(QuitDialog)
    assert dialog is not None and dialog.isVisible()
    assert "Gemini CLI 1.0" in dialog.apps.text() and "alpha" in dialog.apps.text()
    dialog.reject()  # Cancel: the window stays, and still hosts
    assert quits == [] and host_status() is not None

    window.request_quit()
    dialog = next(d for d in window.findChildren(QuitDialog) if d.isVisible())
    dialog.dont_ask.setChecked(True)
    dialog.stop_button.click()
    qtbot.waitUntil(lambda: quits == [True], timeout=WAIT)
    assert window.settings.value(QUIT_CHOICE_KEY) == "stop"
    assert host_status() is None  # the window no longer accepts apps
    loop.stop(cleanup=close, timeout=30)  # the quit that follows
    assert host_status() is None and server_pids("basic", os.getpid()) == []  # nothing handed over
    assert gemini.call("alpha__echo", {"text": "x"}) == "RESULT x"  # its next call starts the pool again
    gemini.close()
    assert cli(isolated_data_dir, "daemon", "stop").returncode == 0


def test_the_quit_dialog_lists_each_app_and_answers(qtbot: QtBot) -> None:
    clients = [
        PoolClient("gateway", "Claude Code", "2.1", 41, None, False, 0.0, ("s1", "s2"), 2),
        PoolClient("command", "elftia-mcp call", None, 42, None, False, 0.0, ("s2",), 1),
    ]
    dialog = QuitDialog(clients, {"s1": "memory", "s2": "files"}.__getitem__)
    qtbot.addWidget(dialog)
    text = dialog.apps.text()
    assert "Claude Code 2.1" in text and "process 41" in text and "memory, files" in text and "2 calls running" in text
    assert "elftia-mcp call" in text and "1 call running" in text
    dialog.keep_button.click()
    assert dialog.choice == "keep" and not dialog.remember
    assert PoolState(True, tuple(clients)).users_of("s2") == clients
    assert json.dumps([c.label for c in clients]) == '["Claude Code 2.1", "elftia-mcp call"]'


def test_a_servers_question_during_the_windows_own_call_still_reaches_the_window(
    qtbot: QtBot, hosting: tuple[McpRouter, ServiceLoop[AppServices]], alpha_id: str
) -> None:
    router, _loop = hosting
    router.signals.elicitationRequested.connect(
        lambda request: router.answer_elicitation(request.ticket, "accept", {"name": "Win", "age": 3})
    )
    box: dict[str, Any] = {}
    router.explore.try_tool(alpha_id, "ask_name", {}).then(
        router.signals, lambda r: box.setdefault("ok", r), lambda e: box.setdefault("error", e)
    )
    qtbot.waitUntil(lambda: bool(box), timeout=WAIT)
    assert "hello Win (3)" in json.dumps(box["ok"].response.to_json_dict())


def test_the_window_keeps_its_pool_when_asked_to_hand_over(
    hosting: tuple[McpRouter, ServiceLoop[AppServices]], isolated_data_dir: Path
) -> None:
    # refused at once ("does not"), not after the limit ("did not hand over")
    with pytest.raises(AlreadyRunning, match=r"does not hand over.*Elftia Desktop window"):
        take_over(host_location(isolated_data_dir), limit=30)
    status = host_status()
    assert status is not None and status["hostedBy"] == "window"


def test_a_call_still_running_when_the_hand_over_closes_gets_an_error(
    qtbot: QtBot,
    hosting: tuple[McpRouter, ServiceLoop[AppServices]],
    apps: list[PretendApp],
    isolated_data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    router, loop = hosting
    monkeypatch.setattr("elftia_desktop.host.host.DRAIN_LIMIT", 0.5)
    claude = attach(apps, isolated_data_dir, "Claude Code")
    claude.send_call("alpha__slow", {"seconds": 60})
    qtbot.waitUntil(lambda: any(c.calls_in_flight for c in router.pool.state.users), timeout=WAIT)
    done: list[Any] = []
    router.pool.prepare_quit(True).then(router.signals, done.append, done.append)
    qtbot.waitUntil(lambda: bool(done), timeout=WAIT)
    answer = claude.answer()
    assert answer.startswith("ERROR") and "pool host stopped while this request ran" in answer
    loop.stop(cleanup=close, timeout=30)  # the quit that follows: a daemon takes the pool over
    qtbot.waitUntil(lambda: (s := host_status()) is not None and s["hostedBy"] == "daemon", timeout=WAIT)
    assert cli(isolated_data_dir, "daemon", "stop").returncode == 0  # else it would outlive the test


def test_with_no_daemon_set_the_window_does_not_host_and_says_why(
    qtbot: QtBot, alpha_id: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ELFTIA_NO_DAEMON", "1")
    with hosting_router() as (router, _loop):
        with qtbot.waitSignal(router.signals.poolChanged, timeout=WAIT) as changed:
            router.pool.refresh()
        state = changed.args[0]
        assert not state.hosting and state.problem is not None and "ELFTIA_NO_DAEMON" in state.problem
        settings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
        page = ActivityPage(router, settings, str)
        qtbot.addWidget(page)
        assert "ELFTIA_NO_DAEMON" in page.summary.text()
    assert host_status() is None
