"""``elftia-mcp login|logout`` and in-place sign-in of ``call`` (issue 16): the sign-ins as real processes.

The commands around them (add, a call with the stored tokens, logout) run in process. The CLI
prints the authorization URL on its own line; the test plays the browser: it fetches the URL from
the OAuth test server and follows the redirect to the CLI's callback server.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import pytest

from tests.connections.oauth_helpers import revoke_all
from tests.helpers.cli_runner import CliResult, run_cli
from tests.servers.serve_http import serve_http

pytestmark = pytest.mark.timeout(240)


def _env(data: Path) -> dict[str, str]:
    return os.environ | {
        "ELFTIA_DATA_DIR": str(data),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "DISPLAY": "",
        "WAYLAND_DISPLAY": "",
    }


def _cli(data: Path, *args: str, stdin: str | None = None) -> CliResult:
    """``elftia-mcp ARGS`` in process on ``data``, with no display (no browser could open)."""
    return run_cli(*args, stdin=stdin, data_dir=data, env={"DISPLAY": "", "WAYLAND_DISPLAY": ""})


def _sign_in_through(process: subprocess.Popen[bytes], stream: str) -> list[str]:
    """Read ``stream`` until the authorization URL line, then play the browser; returns the lines read."""
    pipe = getattr(process, stream)
    selector = selectors.DefaultSelector()
    selector.register(pipe, selectors.EVENT_READ)
    lines: list[str] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if not selector.select(timeout=1):
            continue
        line = pipe.readline().decode()  # unbuffered: select sees every line
        if not line:
            break
        lines.append(line.rstrip("\n"))
        if "/authorize?" in line:
            assert line.startswith("http://127.0.0.1:") and line.strip() == line.rstrip("\n")  # on its own line
            redirect = httpx2.get(line.strip(), follow_redirects=False, timeout=10)
            page = httpx2.get(redirect.headers["location"], timeout=10)
            assert page.status_code == 200 and "return to Elftia" in page.text
            return lines
    raise AssertionError(f"no authorization URL in {lines}")


def _popen(data: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "elftia_desktop.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,
        env=_env(data),
    )


def test_login_call_logout(tmp_path: Path) -> None:
    with serve_http("oauth") as url:
        entry = {"mcpServers": {"linear": {"type": "http", "url": url, "oauth": {"scope": "mcp:read"}}}}
        added = _cli(tmp_path, "add-json", "-", "--trust", stdin=json.dumps(entry))
        assert added.returncode == 0, added.stderr

        process = _popen(tmp_path, "login", "linear", "--no-browser")
        _sign_in_through(process, "stdout")
        out, err = process.communicate(timeout=60)
        assert process.returncode == 0, err
        assert b"linear: signed in as ada@example.com" in out

        config = (tmp_path / "mcp-config.json").read_text()
        stored = json.loads((tmp_path / "secrets.json").read_text())
        tokens = json.loads(next(v for k, v in stored.items() if k.endswith(":oauth:tokens")))
        assert tokens["access_token"] not in config and '"scopes"' in config
        assert oct((tmp_path / "secrets.json").stat().st_mode & 0o777) == "0o600"

        called = _cli(tmp_path, "call", "linear", "whoami")  # the stored tokens: no sign-in
        assert called.returncode == 0, called.stderr
        assert "mcp:read" in called.stdout

        revoke_all(url)  # the next call meets a 401 and signs in in place (URL on stderr)
        process = _popen(tmp_path, "call", "linear", "whoami", "--no-browser", "--json")
        lines = _sign_in_through(process, "stderr")
        out, err = process.communicate(timeout=60)
        assert process.returncode == 0, err
        assert json.loads(out)["isError"] is False
        assert any(line.startswith("Sign in to linear") for line in lines)

        logged_out = _cli(tmp_path, "logout", "linear")
        assert logged_out.returncode == 0 and "linear: not signed in" in logged_out.stdout
        assert not any(k.endswith(":oauth:tokens") for k in json.loads((tmp_path / "secrets.json").read_text()))
