"""Issue 30: the platform pieces of the pool host: the local endpoint (both kinds) and the data folder's lock."""

from __future__ import annotations

import asyncio
import stat
import sys
from pathlib import Path

import pytest

from elftia_desktop.host import wire
from elftia_desktop.platform import endpoint
from elftia_desktop.platform.lock import FileLock, is_free, read_note


async def _echo_hello(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Answer the first line with whether it carried the token, then close."""
    line = await reader.readline()
    writer.write(wire.encode({"ok": endpoint.token_ok(ADDRESS, wire.decode(line))}))
    await writer.drain()
    writer.close()


ADDRESS: endpoint.Address = {}


@pytest.fixture
def anyio_backend() -> str:
    """The endpoint serves asyncio streams."""
    return "asyncio"


def _ask(address: endpoint.Address, hello: dict[str, str]) -> bool:
    with endpoint.connect(address) as sock:
        sock.sendall(wire.encode(hello))
        return bool(wire.decode(wire.read_frame(sock) or b"{}")["ok"])


@pytest.mark.anyio
@pytest.mark.parametrize("unix", [True, False], ids=["unix-socket", "tcp-with-token"])
async def test_the_endpoint_serves_lines_and_a_tcp_one_wants_its_token(
    unix: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if unix and not endpoint.unix_sockets():
        pytest.skip("no Unix sockets here")
    monkeypatch.setattr(endpoint, "unix_sockets", lambda: unix)  # the Windows kind runs on every OS
    server, address = await endpoint.listen(tmp_path / "h.sock", _echo_hello, wire.MAX_FRAME)
    ADDRESS.clear()
    ADDRESS.update(address)
    try:
        with_token = {"token": address["token"]} if not unix else {}
        assert await asyncio.to_thread(_ask, address, {"role": "command", **with_token})
        if unix:
            assert stat.S_IMODE((tmp_path / "h.sock").stat().st_mode) == 0o600
            assert "token" not in address
        else:
            assert address["tcp"].startswith("127.0.0.1:")
            assert not await asyncio.to_thread(_ask, address, {"role": "command", "token": "guess"})
            assert not await asyncio.to_thread(_ask, address, {"role": "command"})
            assert address["token"] not in endpoint.describe(address)
    finally:
        server.close()
        endpoint.remove(address)
    assert not (tmp_path / "h.sock").exists()


def test_the_lock_is_exclusive_says_its_holder_and_is_free_again_after_release(tmp_path: Path) -> None:
    path = tmp_path / "host.lock"
    first = FileLock(path)
    assert first.acquire(b"1234")
    assert read_note(path) == b"1234"
    if sys.platform != "win32":  # flock: another open file of this process is another holder
        assert not FileLock(path).acquire()
        assert not is_free(path)
    first.release()
    assert is_free(path)
    second = FileLock(path)
    assert second.acquire()
    second.release()
