"""Fixtures of the pool host tests: asyncio, a test's own data folder (``data_dir``: alpha and gamma;
``alpha_dir``: alpha only), and one pool host shared by the tests of a module.

A module whose tests only use a host (they neither kill, stop nor reconfigure it) lets them share
one: :func:`shared_folders` is a data folder and a socket folder for the module, the host in it is
started by the first test that needs it and stopped at the module's end (the end fails if a process
of that folder stays, as a ``daemon`` test's end does for its own hosts); :func:`shared_dir` points
a test's commands, gateways and status requests there. A module adds its servers by overriding
``shared_folders`` (module scope, asking for the one here).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import stop_hosts
from tests.gateway.gateway_helpers import add_stdio, open_catalog
from tests.host.host_helpers import SharedFolders, add_alpha_and_gamma, elftia_processes, host_status

SETTLE = 30.0
"""Seconds a test waits for the shared host to let go of an earlier test's clients and calls."""


@pytest.fixture
def anyio_backend() -> str:
    """The host and its clients run on asyncio."""
    return "asyncio"


@pytest.fixture
def data_dir(isolated_data_dir: Path) -> Path:
    """This test's own data folder with alpha (basic) and gamma (features); a module may define its own."""
    return add_alpha_and_gamma(isolated_data_dir)


@pytest.fixture
def alpha_dir(isolated_data_dir: Path) -> Path:
    """This test's own data folder with alpha only, for a test that calls nothing else (each host an app's
    gateway attaches to starts every server the tool list needs)."""
    add_stdio(open_catalog(isolated_data_dir), "alpha", "basic")
    return isolated_data_dir


@pytest.fixture(scope="module")
def shared_folders(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedFolders]:
    """A data and a socket folder for this module; at its end its hosts are stopped and no process of it stays."""
    data_dir = tmp_path_factory.mktemp("elftia-shared")
    with tempfile.TemporaryDirectory(prefix="elftia-host-") as host_dir:
        yield SharedFolders(data_dir, Path(host_dir))
        stop_hosts(Path(host_dir))
    deadline = time.monotonic() + SETTLE
    while (left := elftia_processes(data_dir)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not left, f"processes of the module's shared host outlived it: {left}"


@pytest.fixture
def shared_dir(shared_folders: SharedFolders, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """This test's data folder is the module's, on the module's host; its folder.

    The test starts once the host has no client and no call left from an earlier test (the servers
    stay: that is the sharing). A test that stops, kills or replaces a running shared host fails: it
    needs a host of its own.
    """
    monkeypatch.setenv("ELFTIA_DATA_DIR", str(shared_folders.data_dir))
    monkeypatch.setenv("ELFTIA_HOST_DIR", str(shared_folders.host_dir))
    before = _settled()
    yield shared_folders.data_dir
    after = host_status()
    if before is not None and (after is None or after["pid"] != before):
        pytest.fail(f"the module's shared host (pid {before}) was stopped or replaced: give this test its own")


def _settled() -> int | None:
    """The shared host's pid once only this status request is its client and no call runs (None: none runs)."""
    deadline = time.monotonic() + SETTLE
    while True:
        status = host_status()
        if status is None:
            return None
        idle = all(c["role"] == "command" for c in status["clients"]) and not status.get("callsRunning")
        if idle:
            return int(status["pid"])
        if time.monotonic() > deadline:
            pytest.fail(f"the shared host kept an earlier test's clients or calls: {status['clients']}")
        time.sleep(0.05)
