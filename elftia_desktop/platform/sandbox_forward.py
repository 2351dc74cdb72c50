"""Runs inside a Linux sandbox (stdlib only, ``python -I -S``): the proxy port on the sandbox's loopback.

``sandbox_forward.py SOCKET PORT -- COMMAND...`` (in the frozen app, which cannot run a script:
``<app> --run-sandbox-forward SOCKET PORT -- COMMAND...``, served by :func:`maybe_run_forwarder`
before Qt is imported) listens on ``127.0.0.1:PORT`` in the sandbox's
own network namespace, passes each connection to the app's proxy through the Unix socket
``SOCKET`` (the only way out), starts ``COMMAND`` with this process's stdin, stdout and stderr,
and exits with its exit code.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import threading
from collections.abc import Sequence

FORWARD_FLAG = "--run-sandbox-forward"
"""The frozen app's own executable runs the forwarder when its first argument is this flag."""


def _pump(source: socket.socket, target: socket.socket) -> None:
    """Copy ``source`` to ``target`` until either side closes."""
    try:
        while data := source.recv(65536):
            target.sendall(data)
    except OSError:
        pass
    finally:
        for sock in (source, target):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


def _serve(listener: socket.socket, path: str) -> None:
    """Accept connections forever; each goes to the proxy socket."""
    while True:
        client, _ = listener.accept()
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(path)
        except OSError:
            client.close()
            upstream.close()
            continue
        threading.Thread(target=_pump, args=(client, upstream), daemon=True).start()
        threading.Thread(target=_pump, args=(upstream, client), daemon=True).start()


def main(argv: list[str]) -> int:
    """Listen, start the command, return its exit code."""
    path, port, command = argv[0], int(argv[1]), argv[3:]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    threading.Thread(target=_serve, args=(listener, path), daemon=True).start()
    try:
        return subprocess.call(command)
    except OSError as exc:
        print(f"sandbox: cannot start {command[0]!r}: {exc}", file=sys.stderr)
        return 127
    except KeyboardInterrupt:
        return 130


def maybe_run_forwarder(argv: Sequence[str]) -> int | None:
    """Run the forwarder when ``argv`` (``sys.argv``) is ``[prog, FORWARD_FLAG, ...]``: its exit code; else None."""
    if len(argv) < 2 or argv[1] != FORWARD_FLAG:
        return None
    args = list(argv[2:])
    if len(args) < 4 or args[2] != "--":
        print(f"usage: {FORWARD_FLAG} SOCKET PORT -- COMMAND...", file=sys.stderr)
        return 2
    return main(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
