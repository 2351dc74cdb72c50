"""Issue 33: the sandbox's proxy forwarder in the frozen app (its own executable with a flag, no script).

The source checkout runs ``python -I -S forward.py``; a PyInstaller bundle has no ``.py`` file and no
``python``, so it runs ``<app> --run-sandbox-forward …``, which the app's entry point serves before Qt
is imported. Both command lines are checked, and the app's real entry point is run with the flag.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from elftia_desktop.platform.sandbox import ProxyLink, SandboxSpec
from elftia_desktop.platform.sandbox_forward import FORWARD_FLAG, maybe_run_forwarder
from elftia_desktop.platform.sandbox_linux import bwrap_argv

FORWARD_MOUNT = "/run/elftia-sandbox/forward.py"


def _proxy_spec(executable: str) -> SandboxSpec:
    return SandboxSpec(argv=["srv", "-v"], home="/h", net="proxy", proxy=ProxyLink(3128, "/tmp/sock-dir", executable))


def _tail(argv: list[str]) -> list[str]:
    return argv[argv.index("--") + 1 :]


def test_source_checkout_runs_the_script_with_an_isolated_python() -> None:
    argv = bwrap_argv(_proxy_spec("/usr/bin/python3"), "bwrap")
    forwarder = ["/usr/bin/python3", "-I", "-S", FORWARD_MOUNT]
    assert _tail(argv) == [*forwarder, "/run/elftia-sandbox/proxy.sock", "3128", "--", "srv", "-v"]
    assert FORWARD_MOUNT in argv[: argv.index("--")]  # the script is bound in


def test_frozen_app_runs_itself_with_the_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    argv = bwrap_argv(_proxy_spec("/opt/Elftia/elftia-mcp"), "bwrap")
    forwarder = ["/opt/Elftia/elftia-mcp", FORWARD_FLAG]
    assert _tail(argv) == [*forwarder, "/run/elftia-sandbox/proxy.sock", "3128", "--", "srv", "-v"]
    assert FORWARD_MOUNT not in argv  # no script in a bundle: binding a missing file would fail bwrap
    assert "/tmp/sock-dir" in argv


def test_other_arguments_are_left_to_the_app() -> None:
    assert maybe_run_forwarder(["elftia-desktop"]) is None
    assert maybe_run_forwarder(["elftia-desktop", "--verbose", FORWARD_FLAG]) is None


def test_a_short_flag_line_says_how_to_use_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert maybe_run_forwarder(["app", FORWARD_FLAG, "/s", "3128"]) == 2
    assert "SOCKET PORT -- COMMAND" in capsys.readouterr().err


def _echo_upstream(path: Path, ready: threading.Event) -> None:
    """The app's proxy socket, reduced to an echo that answers one connection."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(path))
        server.listen(1)
        ready.set()
        conn, _ = server.accept()
        with conn:
            conn.sendall(b"echo:" + conn.recv(64))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.skipif(sys.platform == "win32", reason="the forwarder runs only in the Linux sandbox")
def test_the_app_entry_point_serves_the_flag_before_qt(tmp_path: Path) -> None:
    path, ready = tmp_path / "proxy.sock", threading.Event()
    threading.Thread(target=_echo_upstream, args=(path, ready), daemon=True).start()
    assert ready.wait(30)
    port = _free_port()  # the forwarder listens before it starts the command: no retry needed
    client = f"import socket, sys; s = socket.create_connection(('127.0.0.1', {port})); s.sendall(b'ping'); "
    client += "print(s.recv(64).decode()); sys.exit(7)"
    entry = "import sys; from elftia_desktop.app import main; code = main(sys.argv); "
    entry += "sys.stderr.write('qt=' + str('PySide6' in sys.modules)); sys.exit(code)"
    argv = [sys.executable, "-c", entry, FORWARD_FLAG, str(path), str(port), "--", sys.executable, "-c", client]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 7, done.stderr  # the server's exit code comes back
    assert done.stdout.strip() == "echo:ping"  # through the forwarder to the proxy socket and back
    assert done.stderr.endswith("qt=False")  # served before Qt is imported
