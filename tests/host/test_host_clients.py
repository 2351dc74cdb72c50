"""Who is attached to the pool host, and handing the pool over.

Real clients: pretend apps (the SDK's client on ``elftia-mcp serve``, with their own ``clientInfo``)
and ``elftia-mcp call`` in subprocesses; the host is the daemon they start on demand. The handover
is asked the way the window asks it (``lease.take_over``).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from elftia_desktop.host.lease import AlreadyRunning, HostLock, take_over
from elftia_desktop.host.location import host_location
from tests.gateway.gateway_helpers import process_alive
from tests.helpers.pretend_app import PretendApp
from tests.host.host_helpers import cli, elftia_processes, host_status, server_pids

pytestmark = [pytest.mark.timeout(240)]


@pytest.fixture
def apps() -> Iterator[list[PretendApp]]:
    """Pretend apps started by the test (closed at the end)."""
    started: list[PretendApp] = []
    yield started
    for app in started:
        app.close()


def wait_until(check: Any, limit: float = 30.0) -> Any:
    """Poll ``check()`` every 50 ms until it is truthy (a process's state sends no events); its last value."""
    deadline = time.monotonic() + limit
    while not (value := check()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return value


def by_name(status: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The status's clients by app name (unnamed ones left out)."""
    return {c["clientName"]: c for c in status["clients"] if c["clientName"]}


def test_status_names_each_app_its_process_servers_and_calls(data_dir: Path, apps: list[PretendApp]) -> None:
    ann = PretendApp(data_dir, "Claude Code", "2.1.4")
    apps.append(ann)
    bob = PretendApp(data_dir, "Gemini CLI", "0.9.0")
    apps.append(bob)
    assert ann.call("alpha__echo", {"text": "hi"}) == "RESULT hi"
    assert bob.call("gamma__count", {"steps": 1}).startswith("RESULT")
    bob.send_call("alpha__slow", {"seconds": 3})
    status = wait_until(lambda: (s := host_status()) and by_name(s)["Gemini CLI"]["callsInFlight"] == 1 and s)
    assert status, "the slow call should show as in flight"
    clients = by_name(status)
    assert set(clients) == {"Claude Code", "Gemini CLI"}
    claude, gemini = clients["Claude Code"], clients["Gemini CLI"]
    assert (claude["clientVersion"], claude["role"], claude["callsInFlight"]) == ("2.1.4", "gateway", 0)
    assert claude["serverNames"] == ["alpha"]
    assert gemini["serverNames"] == ["gamma", "alpha"]
    assert claude["pid"] == ann.gateway_pid  # from the socket's peer credentials
    assert gemini["pid"] == bob.gateway_pid
    assert bob.answer() == "RESULT slept 3.0"
    listed = json.loads(cli(data_dir, "daemon", "status", "--json").stdout)
    assert by_name(listed)["Gemini CLI"]["callsInFlight"] == 0
    table = cli(data_dir, "daemon", "status").stdout
    assert "Claude Code 2.1.4" in table and "alpha, gamma" not in table and "gamma, alpha" in table


def test_a_handover_lets_the_call_in_flight_finish_then_the_next_call_reconnects(
    alpha_dir: Path, apps: list[PretendApp]
) -> None:
    ann = PretendApp(alpha_dir, "Claude Code")
    apps.append(ann)
    assert ann.call("alpha__echo", {"text": "before"}) == "RESULT before"
    daemon = host_status()
    assert daemon is not None
    ann.send_call("alpha__slow", {"seconds": 2})
    assert wait_until(lambda: (s := host_status()) and s["callsRunning"] == 1)
    taken: list[HostLock] = []
    taker = threading.Thread(target=lambda: taken.append(take_over(host_location(alpha_dir))))
    taker.start()
    assert ann.answer() == "RESULT slept 2.0"  # the call in flight finished on the old host
    taker.join(timeout=60)
    assert taken and taken[0].held
    assert wait_until(lambda: not process_alive(int(daemon["pid"])))
    assert server_pids(alpha_dir, "basic.py") == []  # the daemon stopped its servers on the way out
    taken[0].release()  # this test does not host: the next call starts a daemon again
    assert ann.call("alpha__echo", {"text": "after"}) == "RESULT after"
    assert len(server_pids(alpha_dir, "basic.py")) == 1
    ann.close()
    assert cli(alpha_dir, "daemon", "stop").returncode == 0
    assert wait_until(lambda: not elftia_processes(alpha_dir)), elftia_processes(alpha_dir)


def test_a_second_taker_waits_for_the_lock_and_says_who_keeps_it(data_dir: Path) -> None:
    location = host_location(data_dir)
    first = HostLock(location)
    assert first.acquire()
    try:
        with pytest.raises(AlreadyRunning, match=r"another pool host \(pid \d+\) keeps"):
            take_over(location, limit=0.3)
    finally:
        first.release()
    second = take_over(location, limit=0.3)
    assert second.held
    second.release()
