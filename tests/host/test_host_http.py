"""The pool host serves Streamable HTTP itself: its own endpoint, and ``serve --http`` run by hand.

Real daemon, real servers, the SDK's Streamable HTTP client with the bearer token. The host
listens on 127.0.0.1 and writes where to ``host-http.json``; ``serve --http`` has the host listen
on its port; SIGTERM frees the port; a host killed with SIGKILL is replaced (or, when none can be
had, the process serves the port itself). Stdio apps of both protocol eras, then HTTP clients, on
one host. The tests that only use the host share the module's (``shared_dir``); those that kill,
stop, start or do without it have their own.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import tempfile
from contextlib import AbstractContextManager, AsyncExitStack
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from elftia_desktop.core.agent_models import Agent, McpMode
from elftia_desktop.core.agent_store import AgentStore
from elftia_desktop.gateway.http_address import read_endpoint, scope_path
from tests.gateway.gateway_helpers import (
    ACCEPT,
    INITIALIZE,
    gateway_argv,
    gateway_env,
    gateway_token_of,
    http_gateway,
    http_session,
    open_catalog,
    poll,
    process_alive,
    stdio_gateway,
    text_of,
)
from tests.helpers.cli_runner import run_cli
from tests.host.host_helpers import (
    SharedFolders,
    add_alpha_and_gamma,
    answering,
    cli,
    elftia_processes,
    host_status,
    server_pids,
)

pytestmark = [pytest.mark.anyio, pytest.mark.daemon, pytest.mark.timeout(240)]


@pytest.fixture(scope="module")
def shared_folders(shared_folders: SharedFolders) -> SharedFolders:
    """The module's folders, alpha and gamma in its catalog: one host (and one process per server) for the
    tests that only use them."""
    add_alpha_and_gamma(shared_folders.data_dir)
    return shared_folders


def http_owner(
    data_dir: Path, *args: str, env: dict[str, str] | None = None
) -> AbstractContextManager[tuple[str, subprocess.Popen[str]]]:
    """``serve --http 0 ARGS`` (attached unless ARGS say otherwise), its stderr kept; its URL and the process."""
    return http_gateway(data_dir, *args, env=env, stderr=subprocess.PIPE)


def port_of(url: str) -> int:
    """The port of a gateway URL."""
    match = re.search(r":(\d+)/mcp$", url)
    assert match
    return int(match.group(1))


def port_free(port: int) -> bool:
    """Whether ``port`` on 127.0.0.1 can be bound (nothing listens there any more)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def clients_of(role: str) -> list[dict[str, Any]]:
    """The host's clients of ``role``."""
    return [c for c in (host_status() or {}).get("clients", []) if c["role"] == role]


async def test_two_http_clients_and_a_stdio_gateway_share_one_process_per_server(shared_dir: Path) -> None:
    token = gateway_token_of(shared_dir)
    with http_owner(shared_dir) as (url, owner):
        status = host_status()
        assert status is not None and status["pid"] != owner.pid  # the host serves, not the serve process
        assert [c["pid"] for c in clients_of("listener")] == [owner.pid]
        async with AsyncExitStack() as stack:
            first, _ = await stack.enter_async_context(http_session(url, token))
            second, _ = await stack.enter_async_context(http_session(url, token))
            stdio, _ = await stack.enter_async_context(stdio_gateway(shared_dir))
            pids = {int(text_of(await s.call_tool("alpha__pid", {}))) for s in (first, second, stdio)}
            assert len(pids) == 1 and server_pids(shared_dir, "basic.py") == list(pids)
            assert text_of(await second.call_tool("gamma__count", {"steps": 1})) == "counted 1"
            http_clients = clients_of("http")
            assert len(http_clients) == 2
            assert await poll(lambda: [c["pid"] for c in clients_of("http")] == [os.getpid()] * 2)  # this process
            assert {c["clientName"] for c in http_clients} == {"mcp"}  # the SDK client's clientInfo
            alpha = open_catalog(shared_dir).find("alpha").id
            gamma = open_catalog(shared_dir).find("gamma").id
            assert sorted(len(c["servers"]) for c in http_clients) == [1, 2]
            assert all(alpha in c["servers"] for c in http_clients)
            assert any(gamma in c["servers"] for c in http_clients)
            assert len(clients_of("gateway")) == 1
        assert await poll(lambda: not clients_of("http"))  # the sessions ended (DELETE)
        assert server_pids(shared_dir, "basic.py") == list(pids)  # the pool keeps its server for other clients


async def test_progress_and_questions_go_to_the_http_client_whose_call_caused_them(
    shared_dir: Path, tmp_path: Path
) -> None:
    token = gateway_token_of(shared_dir)
    asked: list[str] = []
    progress: dict[str, list[float]] = {"ann": [], "bob": []}
    counted: dict[str, str] = {}

    def on_progress(name: str) -> Any:
        async def note(value: float, total: float | None, message: str | None) -> None:
            progress[name].append(value)

        return note

    with http_owner(shared_dir) as (url, _owner):
        async with AsyncExitStack() as stack:
            ann, _ = await stack.enter_async_context(
                http_session(url, token, elicitation_callback=answering("ann", asked))
            )
            bob, _ = await stack.enter_async_context(
                http_session(url, token, elicitation_callback=answering("bob", asked))
            )

            async def count(name: str, steps: int) -> None:
                session = ann if name == "ann" else bob
                result = await session.call_tool("gamma__count", {"steps": steps}, progress_callback=on_progress(name))
                counted[name] = text_of(result)

            with anyio.fail_after(60):
                async with anyio.create_task_group() as group:  # both count on one server at once
                    group.start_soon(count, "ann", 2)
                    group.start_soon(count, "bob", 3)
                async with anyio.create_task_group() as group:  # ann's call runs elsewhere while bob's asks
                    group.start_soon(ann.call_tool, "gamma__wait", {"seconds": 1, "marker": str(tmp_path / "m")})
                    assert text_of(await bob.call_tool("alpha__ask_name", {})) == "hello bob (1)"
                assert text_of(await ann.call_tool("alpha__ask_name", {})) == "hello ann (1)"
    assert counted == {"ann": "counted 2", "bob": "counted 3"}
    assert progress == {"ann": [1, 2], "bob": [1, 2, 3]}
    assert asked == ["bob", "ann"]


async def test_the_hosted_listener_wants_the_token(shared_dir: Path) -> None:
    token = gateway_token_of(shared_dir)
    with http_owner(shared_dir) as (url, _owner):
        assert url.startswith("http://127.0.0.1:")
        assert clients_of("listener")
        async with httpx2.AsyncClient() as client:
            for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": token}):
                response = await client.post(url, json=INITIALIZE, headers=ACCEPT | headers)
                assert response.status_code == 401
            foreign = ACCEPT | {"Authorization": f"Bearer {token}", "Origin": "https://evil.example"}
            assert (await client.post(url, json=INITIALIZE, headers=foreign)).status_code == 403
            ok = await client.post(url, json=INITIALIZE, headers=ACCEPT | {"Authorization": f"Bearer {token}"})
            assert ok.status_code == 200
    assert gateway_token_of(shared_dir) == token  # the host used the stored token, made none anew


def serve_process(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``elftia-mcp serve ARGS`` as a process of its own (attached: the pool host's path), run to its end."""
    return subprocess.run(
        gateway_argv(*args),
        env=gateway_env(data_dir),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def said(stderr: str) -> list[str]:
    """The lines of ``stderr`` but the note of the command that started the host (``attach.py``)."""
    return [line for line in stderr.strip().splitlines() if "started the background pool host" not in line]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=lambda s: signal.Signals(s).name)
async def test_a_signal_closes_the_listener_and_frees_the_port(shared_dir: Path, signum: int) -> None:
    token = gateway_token_of(shared_dir)
    with http_owner(shared_dir) as (url, owner):
        async with http_session(url, token) as (session, _):
            assert text_of(await session.call_tool("alpha__echo", {"text": "hi"})) == "hi"
            host = host_status()
            assert host is not None and clients_of("http")
            owner.send_signal(signum)
            code = await anyio.to_thread.run_sync(lambda: owner.wait(timeout=60))
            assert owner.stderr is not None
            lines = said(owner.stderr.read())
            assert (code, lines) == (0, [f"elftia gateway: stopped ({signal.Signals(signum).name})"])
            assert port_free(port_of(url))  # free as soon as the process has exited
            assert not clients_of("listener") and not clients_of("http")
            assert (host_status() or {}).get("pid") == host["pid"]  # the host itself keeps running
            assert owner.pid not in elftia_processes(shared_dir)


async def test_a_port_in_use_is_the_same_error_attached_or_not(shared_dir: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = str(taken.getsockname()[1])
        done = await anyio.to_thread.run_sync(lambda: serve_process(shared_dir, "--http", port))
        attached = (done.returncode, done.stdout, said(done.stderr))
        alone = run_cli("serve", "--http", port, "--no-daemon")  # in this process: it fails before serving
        own = (alone.returncode, alone.stdout, said(alone.stderr))
    assert attached == own
    assert attached[0] == 1 and attached[2] == [
        f"error: --http: cannot listen on 127.0.0.1:{port}: Address already in use"
    ]


async def test_an_unknown_agent_is_refused_as_without_a_host(shared_dir: Path) -> None:
    done = await anyio.to_thread.run_sync(lambda: serve_process(shared_dir, "--http", "0", "--agent", "nobody"))
    alone = run_cli("serve", "--http", "0", "--agent", "nobody", "--no-daemon")  # in this process: refused at once
    results = [(done.returncode, said(done.stderr)), (alone.returncode, said(alone.stderr))]
    assert results[0] == results[1]
    assert results[0][0] == 2 and results[0][1][0].startswith("error: --agent:")


async def test_host_killed_the_listener_comes_back_on_a_new_host(data_dir: Path, tmp_path: Path) -> None:
    token = gateway_token_of(data_dir)
    with http_owner(data_dir) as (url, owner):
        async with http_session(url, token) as (session, _):
            first = host_status()
            assert first is not None
            old_servers = server_pids(data_dir, ".py")
            failures: list[Exception] = []

            async def in_flight() -> None:
                try:
                    await session.call_tool("gamma__wait", {"seconds": 60, "marker": str(tmp_path / "m")})
                except Exception as exc:  # the host's connection broke: an error, never silence
                    failures.append(exc)

            with anyio.fail_after(60):
                async with anyio.create_task_group() as group:
                    group.start_soon(in_flight)
                    assert await poll(lambda: (host_status() or {}).get("callsRunning") == 1)
                    os.kill(first["pid"], signal.SIGKILL)
            assert failures
            assert await poll(lambda: (host_status() or {}).get("pid") not in (None, first["pid"]), limit=60)
            assert await poll(lambda: bool(clients_of("listener")), limit=60)  # the new host listens on the port
            with pytest.raises(MCPError, match="Session not found"):  # 404 from the new host: it never knew it
                await session.call_tool("alpha__echo", {"text": "old session"})
        async with http_session(url, token) as (session, _):  # a new session on the same port works
            assert text_of(await session.call_tool("alpha__echo", {"text": "again"})) == "again"
        second = host_status()
        assert second is not None and second["pid"] != first["pid"]
        assert [c["pid"] for c in clients_of("listener")] == [owner.pid]
        assert await poll(lambda: not (set(old_servers) & set(server_pids(data_dir, ".py"))), limit=30)


async def test_no_host_to_be_had_the_process_serves_its_port_itself(alpha_dir: Path) -> None:
    token = gateway_token_of(alpha_dir)
    with tempfile.TemporaryDirectory(prefix="eh-") as runtime:
        env = gateway_env(alpha_dir) | {"ELFTIA_HOST_DIR": runtime}
        with http_owner(alpha_dir, env=env) as (url, owner):
            async with http_session(url, token) as (session, _):
                assert text_of(await session.call_tool("alpha__echo", {"text": "hosted"})) == "hosted"

            def daemons() -> list[int]:
                """The folder's daemons (a second one that lost the start race may still be exiting)."""
                return [pid for pid in elftia_processes(alpha_dir) if pid != owner.pid and b"daemon" in _cmdline(pid)]

            assert await poll(lambda: len(daemons()) == 1, limit=30)
            daemon = daemons()
            os.chmod(runtime, 0o777)  # no safe place for a host socket any more: no new host can be had
            try:
                os.kill(daemon[0], signal.SIGKILL)
                assert await poll(lambda: _listening(url), limit=30)  # the process binds the port itself now
                async with http_session(url, token) as (session, _):
                    pid = int(text_of(await session.call_tool("alpha__pid", {})))
                    assert _parent(pid) == owner.pid  # the server runs under the serve process now
            finally:
                os.chmod(runtime, 0o700)
        assert await poll(lambda: not elftia_processes(alpha_dir), limit=30)


async def test_no_daemon_serves_in_process_as_before(alpha_dir: Path) -> None:
    token = gateway_token_of(alpha_dir)
    with http_owner(alpha_dir, "--no-daemon") as (url, owner):
        async with http_session(url, token) as (session, _):
            pid = int(text_of(await session.call_tool("alpha__pid", {})))
            assert _parent(pid) == owner.pid
        assert host_status() is None
        assert await poll(lambda: not process_alive(pid))  # its only client left: the servers stop


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[1])


def writer_agent(data_dir: Path) -> None:
    """Agent Writer: alpha's echo only."""
    alpha = open_catalog(data_dir).find("alpha")
    assert alpha is not None
    writer = Agent(
        name="Writer", mcp_mode=McpMode.MANUAL, selected_servers=[alpha.id], selected_tools={alpha.id: ["echo"]}
    )
    AgentStore(data_dir / "agents.json").add(writer)


async def tool_names(session: Any) -> list[str]:
    """The tools a session lists."""
    return [tool.name for tool in (await session.list_tools()).tools]


async def test_the_host_serves_http_itself_with_the_agent_in_the_path(data_dir: Path) -> None:
    token = gateway_token_of(data_dir)
    writer_agent(data_dir)
    assert cli(data_dir, "daemon", "start").returncode == 0
    record = read_endpoint(data_dir)
    status = host_status()
    assert record is not None and status is not None and record["pid"] == status["pid"]
    assert (data_dir / "host-http.json").stat().st_mode & 0o777 == 0o600
    url = record["url"]
    assert url == f"http://127.0.0.1:{record['port']}/mcp"
    base = url.removesuffix("/mcp")
    async with AsyncExitStack() as stack:
        every, _ = await stack.enter_async_context(http_session(url, token))
        writer, _ = await stack.enter_async_context(http_session(base + scope_path("Writer"), token))
        hub, _ = await stack.enter_async_context(http_session(base + scope_path("Writer", hub=True), token))
        assert {"alpha__echo", "gamma__count"} <= set(await tool_names(every))
        assert await tool_names(writer) == ["alpha__echo"]
        assert await tool_names(hub) == ["find_tools", "call_tool"]
        assert text_of(await writer.call_tool("alpha__echo", {"text": "direct"})) == "direct"
        assert sorted((c["agent"] or "", c["hub"]) for c in clients_of("http")) == [
            ("", False),
            ("Writer", False),
            ("Writer", True),
        ]
    async with httpx2.AsyncClient() as client:
        bearer = ACCEPT | {"Authorization": f"Bearer {token}"}
        assert (await client.post(url, json=INITIALIZE, headers=ACCEPT)).status_code == 401
        unknown = await client.post(base + scope_path("Nobody"), json=INITIALIZE, headers=bearer)
        assert unknown.status_code == 404 and "Nobody" in unknown.json()["error_description"]
        assert (await client.post(base + "/elsewhere", json=INITIALIZE, headers=bearer)).status_code == 404
    assert cli(data_dir, "daemon", "stop").returncode == 0
    assert await poll(lambda: read_endpoint(data_dir) is None)  # removed when the host stops


async def test_stdio_apps_of_both_eras_then_http_clients_on_the_same_host(shared_dir: Path) -> None:
    """Three stdio apps used ``serve --agent Writer`` one after the other; then HTTP clients of that agent work."""
    token = gateway_token_of(shared_dir)
    writer_agent(shared_dir)
    async with stdio_gateway(shared_dir, "--agent", "Writer") as (session, _):  # ClientSession, 2025-11-25
        assert text_of(await session.call_tool("alpha__echo", {"text": "one"})) == "one"
    argv = gateway_argv("--agent", "Writer")
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=gateway_env(shared_dir))
    async with Client(params, mode="auto") as modern:  # Client, 2026-07-28
        assert modern.protocol_version == "2026-07-28"
        assert text_of(await modern.call_tool("alpha__echo", {"text": "two"})) == "two"
    async with stdio_gateway(shared_dir, "--agent", "Writer") as (session, _):  # the first kind again
        assert text_of(await session.call_tool("alpha__echo", {"text": "three"})) == "three"
    record = read_endpoint(shared_dir)
    assert record is not None
    urls = [record["url"].removesuffix("/mcp") + scope_path("Writer")]
    with http_owner(shared_dir, "--agent", "Writer") as (owner_url, _owner):
        urls.append(owner_url)
        for url in urls:
            async with http_session(url, token) as (session, _):
                assert text_of(await session.call_tool("alpha__echo", {"text": "http"})) == "http"
            headers = {"Authorization": f"Bearer {token}"}
            async with (
                httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http,
                Client(streamable_http_client(url, http_client=http)) as modern,
            ):
                assert text_of(await modern.call_tool("alpha__echo", {"text": "modern"})) == "modern"


def _listening(url: str) -> bool:
    """Whether something accepts connections on ``url``'s port."""
    parts = urlsplit(url)
    with socket.socket() as probe:
        return probe.connect_ex((parts.hostname or "127.0.0.1", parts.port or 80)) == 0
