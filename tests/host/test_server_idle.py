"""The daemon's idle stop per server: the unused server stops, the used one stays warm, a call holds its server."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest

from elftia_desktop.host import client
from tests.gateway.gateway_helpers import add_stdio, open_catalog, poll, process_alive
from tests.host.host_helpers import cli, elftia_processes, host_status, server_pids

pytestmark = [pytest.mark.timeout(180)]


@pytest.fixture
def data_dir(isolated_data_dir: Path) -> Path:
    """alpha (basic) and gamma (features), and a daemon that stops servers unused for 2 s."""
    catalog = open_catalog(isolated_data_dir)
    add_stdio(catalog, "alpha", "basic")
    add_stdio(catalog, "gamma", "features")
    started = cli(isolated_data_dir, "daemon", "start", "--idle", "2", "--json")
    assert json.loads(started.stdout)["started"], started.stderr
    return isolated_data_dir


def call(server: str, tool: str, **arguments: Any) -> str:
    """One call through the host, in this process; the text of its result."""
    response = client.call(server, tool, arguments, None, lambda _s, _m, _schema: ("decline", None))
    return str(response["content"][0]["text"])


def servers() -> dict[str, dict[str, Any]]:
    """The servers the host runs, by name."""
    status = host_status()
    assert status is not None
    return {s["name"]: s for s in status["servers"]}


def test_only_the_unused_server_stops_and_starts_again_on_its_next_use(data_dir: Path) -> None:
    daemon = host_status()
    assert daemon is not None
    assert call("alpha", "echo", text="warm") == "warm"
    tested = client.probe("test", "gamma")  # a test is a use too (in this process: no gap of seconds of imports)
    assert tested is not None and tested["result"]["success"]
    assert set(servers()) == {"alpha", "gamma"}
    [alpha_pid], [gamma_pid] = server_pids(data_dir, "basic.py"), server_pids(data_dir, "features.py")

    seen: dict[str, dict[str, Any]] = {}

    def gamma_stopped_while_alpha_is_used() -> bool:
        assert call("alpha", "echo", text="still here") == "still here"
        seen.clear()
        seen.update(servers())
        return "gamma" not in seen

    assert anyio.run(poll, gamma_stopped_while_alpha_is_used, 30.0)
    assert seen["alpha"]["state"] == "connected" and seen["alpha"]["idleSeconds"] < 2
    assert anyio.run(poll, lambda: not server_pids(data_dir, "features.py"))
    assert server_pids(data_dir, "basic.py") == [alpha_pid]  # warm all along: never restarted

    assert call("gamma", "shout", message="back") == "shouted"
    [again] = server_pids(data_dir, "features.py")
    assert again != gamma_pid

    # Nobody uses anything now: both servers stop, then the daemon exits (no client attached).
    assert anyio.run(poll, lambda: not process_alive(daemon["pid"]), 30.0)
    assert anyio.run(poll, lambda: not elftia_processes(data_dir))


def test_a_call_in_flight_holds_its_server(data_dir: Path, tmp_path: Path) -> None:
    marker = tmp_path / "wait"
    answers: list[str] = []
    caller = threading.Thread(target=lambda: answers.append(call("gamma", "wait", seconds=5, marker=str(marker))))
    caller.start()
    assert anyio.run(poll, Path(f"{marker}.started").exists)
    held = 0
    while caller.is_alive():  # 5 s of a call on a server idle-stopped after 2 s
        gamma = servers().get("gamma")
        assert gamma is not None and gamma["idleSeconds"] < 2  # 0 while the call runs; never stopped
        held += 1
        anyio.run(poll, lambda: not caller.is_alive(), 0.2)
    caller.join()
    assert answers and held > 5
    assert anyio.run(poll, lambda: "gamma" not in servers())


if sys.platform != "linux":  # pragma: no cover
    pytestmark.append(pytest.mark.skip(reason="/proc"))
