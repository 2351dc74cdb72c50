"""Finding the process behind an HTTP client's TCP connection (``platform/tcp_peers.py``), on real sockets."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from elftia_desktop.platform.tcp_peers import connection_inode, peer_pid

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")


def connected(family: socket.AddressFamily, host: str) -> tuple[socket.socket, socket.socket, socket.socket]:
    """A listener on ``host``, a client connected to it and the accepted end."""
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.bind((host, 0))
    listener.listen(1)
    client = socket.create_connection(listener.getsockname()[:2])
    accepted, _ = listener.accept()
    return listener, client, accepted


@pytest.mark.parametrize(("family", "host"), [(socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")])
def test_the_process_holding_the_client_end_is_found(family: socket.AddressFamily, host: str) -> None:
    try:
        ends = connected(family, host)
    except OSError as exc:
        pytest.skip(f"no {host} here: {exc}")
    listener, client, accepted = ends
    with listener, client, accepted:
        mine, theirs = client.getsockname()[:2], listener.getsockname()[:2]
        assert peer_pid(mine, theirs) == os.getpid()
        assert connection_inode(theirs, mine) != connection_inode(mine, theirs)  # the other end is another socket


def test_another_process_is_named_and_a_closed_connection_is_not_found() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        code = (
            f"import socket, sys; s = socket.create_connection(('127.0.0.1', {port}));"
            " print(s.getsockname()[1], flush=True); sys.stdin.read()"
        )
        child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert child.stdout is not None and child.stdin is not None
        try:
            their_port = int(child.stdout.readline())
            accepted, _ = listener.accept()
            with accepted:
                assert peer_pid(("127.0.0.1", their_port), ("127.0.0.1", port)) == child.pid
        finally:
            child.stdin.close()
            child.wait(timeout=30)
            child.stdout.close()
        assert peer_pid(("127.0.0.1", their_port), ("127.0.0.1", port)) is None  # gone: nothing to name
