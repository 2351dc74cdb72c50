"""SIGTERM and SIGINT stop the in-process gateway (stdio with stdin still open, and HTTP): one line, nothing left."""

from __future__ import annotations

import json
import re
import signal
import subprocess
from pathlib import Path

import anyio
import pytest

from tests.gateway.gateway_helpers import (
    INITIALIZE,
    add_stdio,
    gateway_argv,
    gateway_env,
    gateway_token_of,
    http_session,
    open_catalog,
    poll,
    text_of,
)
from tests.host.host_helpers import elftia_processes, server_pids

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(180), pytest.mark.daemon]

SIGNALS = [signal.SIGTERM, signal.SIGINT]
ECHO_PARAMS = {"name": "alpha__echo", "arguments": {"text": "x"}}
ECHO = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": ECHO_PARAMS}


@pytest.fixture
def data_dir(isolated_data_dir: Path) -> Path:
    """alpha (basic)."""
    add_stdio(open_catalog(isolated_data_dir), "alpha", "basic")
    return isolated_data_dir


def stopped(process: subprocess.Popen[str], signum: int) -> tuple[int, list[str]]:
    """Send ``signum`` (stdin left open) and wait for the exit; the exit code and the lines on stderr."""
    process.send_signal(signum)
    code = process.wait(timeout=60)
    assert process.stderr is not None
    return code, process.stderr.read().strip().splitlines()


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_the_stdio_gateway_stops_on_a_signal_while_stdin_is_open(data_dir: Path, signum: int) -> None:
    process = subprocess.Popen(
        gateway_argv("--no-daemon"),
        env=gateway_env(data_dir),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    for message in (INITIALIZE, {"jsonrpc": "2.0", "method": "notifications/initialized"}, ECHO):
        process.stdin.write(json.dumps(message) + "\n")
    process.stdin.flush()
    assert json.loads(process.stdout.readline())["id"] == 1
    assert json.loads(process.stdout.readline())["result"]["content"][0]["text"] == "x"
    assert server_pids(data_dir, "basic.py")  # a server runs when the signal comes
    code, lines = stopped(process, signum)
    assert (code, lines) == (0, [f"elftia gateway: stopped ({signal.Signals(signum).name})"])
    assert anyio.run(poll, lambda: not elftia_processes(data_dir))
    process.stdin.close()
    process.stdout.close()


def http_gateway_process(data_dir: Path) -> tuple[subprocess.Popen[str], str]:
    """``serve --http 0 --no-daemon`` and its URL, once it printed it."""
    process = subprocess.Popen(
        gateway_argv("--http", "0", "--no-daemon"),
        env=gateway_env(data_dir),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    match = re.search(r"at (http://\S+)", process.stdout.readline())
    assert match, process.poll()
    return process, match.group(1)


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_the_http_gateway_stops_on_a_signal_as_it_starts(data_dir: Path, signum: int) -> None:
    process, _url = http_gateway_process(data_dir)  # the signal comes while the server is still starting
    code, lines = stopped(process, signum)
    assert (code, lines) == (0, [f"elftia gateway: stopped ({signal.Signals(signum).name})"])
    assert process.stdout is not None
    process.stdout.close()


async def test_the_http_gateway_stops_on_sigterm_after_serving(data_dir: Path) -> None:
    token = gateway_token_of(data_dir)
    process, url = http_gateway_process(data_dir)
    async with http_session(url, token) as (session, _):
        assert text_of(await session.call_tool("alpha__echo", {"text": "over http"})) == "over http"
    code, lines = await anyio.to_thread.run_sync(stopped, process, signal.SIGTERM)
    assert (code, lines) == (0, ["elftia gateway: stopped (SIGTERM)"])
    assert await poll(lambda: not elftia_processes(data_dir))
    assert process.stdout is not None
    process.stdout.close()
