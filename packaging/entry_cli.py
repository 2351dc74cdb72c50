"""PyInstaller entry of the command-line executable ``elftia-mcp``.

A frozen CLI starts built-in servers by running itself (``elftia-mcp --run-builtin-server NAME``),
so that flag is served here before the command parser sees it; so is ``--run-sandbox-forward`` (a sandboxed
server's proxy port, started by the frozen executable inside the sandbox).
"""

import sys

from elftia_desktop.builtin_servers.launcher import maybe_run_builtin_server
from elftia_desktop.platform.sandbox_forward import maybe_run_forwarder

if __name__ == "__main__":
    if maybe_run_builtin_server(sys.argv):
        sys.exit(0)
    forwarded = maybe_run_forwarder(sys.argv)
    if forwarded is not None:
        sys.exit(forwarded)
    from elftia_desktop.cli import run

    run()
