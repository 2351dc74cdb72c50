"""A server that writes two lines to stderr and exits with code 3 before serving.

Run: ``python -m tests.servers.exit3`` or ``python tests/servers/exit3.py``. It imports no SDK
(it never gets to serve), so each start costs a bare Python start, not the SDK's imports.
"""

from __future__ import annotations

import sys

if __name__ == "__main__":
    print("starting exit3", file=sys.stderr)
    print("fatal: missing API_KEY (exit 3)", file=sys.stderr, flush=True)
    sys.exit(3)
