"""PyInstaller entry of the command-line executable ``elftia-mcp``.

A frozen CLI starts built-in servers by running itself (``elftia-mcp --run-builtin-server NAME``),
so that flag is served here before the command parser sees it.
"""

import sys

from elftia_desktop.builtin_servers.launcher import maybe_run_builtin_server

if __name__ == "__main__":
    if maybe_run_builtin_server(sys.argv):
        sys.exit(0)
    from elftia_desktop.cli import run

    run()
