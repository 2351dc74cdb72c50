"""Issue 11: a CLI command imports only what it needs.

``elftia-mcp call --no-daemon`` loads the SDK's client without its server side (``sdk_light``) and
none of the other command groups; attached to the pool host it loads no SDK and no pydantic at all,
and neither does a second ``daemon run`` that finds the host running; ``elftia-mcp list`` loads no
SDK at all. Each runs in a fresh process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.processes import REPO

SERVER = REPO / "tests" / "servers" / "basic.py"
PROBE = """
import json, sys
from elftia_desktop.cli import main
code = main(sys.argv[1:])
loaded = [name for name in ("mcp", "pydantic", "mcp.server", "mcp.client.client", "elftia_desktop.cli.integrations",
          "elftia_desktop.cli.dependencies", "elftia_desktop.cli.tool_formats") if name in sys.modules]
print(json.dumps({"code": code, "loaded": loaded}))
"""
pytestmark = pytest.mark.timeout(120)


def probe(data_dir: Path, *argv: str) -> dict[str, object]:
    """Run one CLI command in a fresh interpreter; its exit code and which modules it loaded."""
    env = os.environ | {"ELFTIA_DATA_DIR": str(data_dir), "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, cwd=REPO, env=env, timeout=100
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.daemon
def test_call_loads_the_client_only_and_list_loads_no_sdk(tmp_path: Path) -> None:
    added = probe(tmp_path, "add", "basic", "--trust", "--", sys.executable, str(SERVER))
    assert added["code"] == 0

    call = probe(tmp_path, "call", "basic", "echo", "--args", '{"text": "hi"}', "--no-daemon")
    assert call == {"code": 0, "loaded": ["mcp", "pydantic"]}
    attached = probe(tmp_path, "call", "basic", "echo", "--args", '{"text": "hi"}')  # through the pool host
    assert attached == {"code": 0, "loaded": []}  # no SDK, and not even the records' models (pydantic)
    second_host = probe(tmp_path, "daemon", "run")  # the host that call started holds the lock
    assert second_host == {"code": 0, "loaded": []}  # it exits before it loads the pool

    listed = probe(tmp_path, "list")
    assert listed["code"] == 0
    assert "mcp" not in listed["loaded"]  # type: ignore[operator]


def test_the_deferred_sdk_package_still_has_every_name() -> None:
    script = (
        "from elftia_desktop.connections.sdk_light import defer_sdk_package_inits\n"
        "assert defer_sdk_package_inits()\n"
        "import sys, mcp.client.session\n"
        "assert 'mcp.server' not in sys.modules\n"
        "from mcp import Client, ClientSession, MCPError\n"
        "from mcp.client import ClientRequestContext\n"
        "import mcp\n"
        "print(mcp.types.Tool.__name__, Client.__name__, ClientSession is mcp.client.session.ClientSession)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, timeout=100)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["Tool", "Client", "True"]
