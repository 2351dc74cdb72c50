"""``serve --http`` with the window as the pool host: the window serves the port, each HTTP session is an app
on the Activity page, and the window taking the pool over from a daemon moves the listener to it.

The window side is the real router on the real services built with a ``WindowPool``; the HTTP app
is the SDK's Streamable HTTP client in a thread, with the bearer token.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import keyring
import mcp_types as types
import pytest
from keyring.backends.fail import Keyring as NoKeyring
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from elftia_desktop.core.secrets import SecretVault
from elftia_desktop.gateway.http_address import read_endpoint
from elftia_desktop.gateway.token import gateway_token
from elftia_desktop.ui.pages.activity_page import ActivityPage
from tests.gateway.gateway_helpers import gateway_argv, gateway_env, http_session, text_of
from tests.helpers.live_router import add_servers, server_input
from tests.host.host_helpers import host_status
from tests.ui.test_pool_host_window import WAIT, hosting_router, server_pids

pytestmark = [
    pytest.mark.daemon,
    pytest.mark.timeout(240),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc"),
]


class HttpApp:
    """An app's HTTP session in a thread: initialized, one call made, kept open until :meth:`close`."""

    def __init__(self, url: str, token: str, name: str) -> None:
        self.url, self.token, self.name = url, token, name
        self.result: str | None = None
        self.error: BaseException | None = None
        self.ready = threading.Event()
        self._release = threading.Event()
        self._thread = threading.Thread(target=self._main, daemon=True)
        self._thread.start()
        assert self.ready.wait(60), "the HTTP app did not get its answer"
        if self.error is not None:
            raise self.error

    def _main(self) -> None:
        try:
            anyio.run(self._run)
        except BaseException as exc:  # handed to the test
            self.error = exc
            self.ready.set()

    async def _run(self) -> None:
        info = types.Implementation(name=self.name, version="2.0")
        async with http_session(self.url, self.token, client_info=info) as (session, _):
            self.result = text_of(await session.call_tool("alpha__echo", {"text": "over http"}))
            self.ready.set()
            await anyio.to_thread.run_sync(self._release.wait)

    def close(self) -> None:
        """End the session (DELETE) and the thread."""
        self._release.set()
        self._thread.join(30)


@contextmanager
def serve_http(data_dir: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``elftia-mcp serve --http 0`` (attached); its URL and process, stopped with SIGTERM at the end."""
    process = subprocess.Popen(
        gateway_argv("--http", "0"),
        env=gateway_env(data_dir),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stderr is not None
    try:
        match = re.search(r"at (http://\S+)", process.stdout.readline())
        assert match, process.poll()
        yield match.group(1), process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)
        process.stdout.close()
        process.stderr.close()


@pytest.fixture
def alpha(isolated_data_dir: Path) -> str:
    """alpha (the basic test server), trusted."""
    (record,) = add_servers(server_input("alpha", "basic"))
    return record.id


def test_serve_http_attaches_to_the_window_and_each_session_is_an_app_on_the_activity_page(
    qtbot: QtBot, alpha: str, isolated_data_dir: Path, tmp_path: Path
) -> None:
    token = gateway_token(SecretVault())  # the window's vault (this process's keyring)
    with hosting_router() as (router, _loop):
        with qtbot.waitSignal(router.signals.poolChanged, timeout=WAIT, check_params_cb=lambda s: s.hosting):
            router.pool.refresh()
        page = ActivityPage(router, QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat), lambda i: "alpha")
        qtbot.addWidget(page)
        page.show()
        with serve_http(isolated_data_dir) as (url, owner):
            status = host_status()
            assert status is not None and status["hostedBy"] == "window"
            assert [c["pid"] for c in status["clients"] if c["role"] == "listener"] == [owner.pid]
            assert page.empty.isVisible()  # the serve --http process itself is no app
            cursor = HttpApp(url, token, "Cursor")
            try:
                assert cursor.result == "over http"
                qtbot.waitUntil(
                    lambda: page.table.rowCount() == 1 and page.table.item(0, 4).text() == "alpha", timeout=WAIT
                )
                cells = [page.table.item(0, column).text() for column in range(page.table.columnCount())]
                assert cells[:2] == ["Cursor 2.0", "HTTP gateway · every active server"] and cells[4] == "alpha"
                assert cells[2] == str(os.getpid())  # the app's process, found by its TCP connection (here: this one)
                assert len(server_pids("basic", os.getpid())) == 1  # the window's own server process
                assert [c.caller for c in router.activity.calls(alpha)] == ["Cursor"]  # the call names its app
            finally:
                cursor.close()
            qtbot.waitUntil(lambda: page.empty.isVisible(), timeout=WAIT)  # the session ended
            endpoint = read_endpoint(isolated_data_dir)  # the window serves HTTP itself too
            assert endpoint is not None and endpoint["pid"] == os.getpid()
            direct = HttpApp(endpoint["url"], token, "Zed")
            direct.close()
            assert direct.result == "over http"
            owner.send_signal(signal.SIGTERM)
            assert owner.wait(timeout=30) == 0
            assert owner.stderr is not None and owner.stderr.read().strip() == "elftia gateway: stopped (SIGTERM)"
        status = host_status()
        assert status is not None and not [c for c in status["clients"] if c["role"] in ("listener", "http")]


def test_the_window_taking_the_pool_over_moves_the_listener_to_it(
    qtbot: QtBot, alpha: str, isolated_data_dir: Path
) -> None:
    keyring.set_keyring(NoKeyring())  # the window and the daemon keep the token in one place: the 0600 file
    token = gateway_token(SecretVault())
    with serve_http(isolated_data_dir) as (url, owner):
        daemon = host_status()
        assert daemon is not None and daemon["hostedBy"] == "daemon"
        first = HttpApp(url, token, "Cursor")
        first.close()
        assert first.result == "over http"
        with hosting_router() as (router, _loop):
            with qtbot.waitSignal(router.signals.poolChanged, timeout=WAIT, check_params_cb=lambda s: s.hosting):
                router.pool.refresh()
            qtbot.waitUntil(
                lambda: any(c.role == "listener" and c.pid == owner.pid for c in router.pool.state.clients),
                timeout=WAIT,
            )
            second = HttpApp(url, token, "Cursor")  # the same port, now served by the window
            second.close()
            assert second.result == "over http"
            status = host_status()
            assert status is not None and status["hostedBy"] == "window" and status["pid"] == os.getpid()
        assert owner.poll() is None  # the window quit: the listener moves on again
