"""Issue 33: a sandboxed stdio server behind the stdio gateway (``elftia-mcp serve --no-daemon``).

An SDK client calls the hostile stub through the gateway: with the sandbox on, a key planted in the
(fake) home folder is not readable; with it off, the same call reads it, so the test can fail.
Real parts throughout: bubblewrap, the stub as a subprocess of the gateway, the gateway as a
subprocess of the client.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from elftia_desktop.platform.sandbox import sandbox_support
from tests.gateway.gateway_helpers import stdio_gateway, text_of

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.timeout(180),
    pytest.mark.skipif(sandbox_support() is not None, reason=f"no sandbox here: {sandbox_support()}"),
]
HOSTILE = Path(__file__).parents[1] / "servers" / "hostile.py"


@pytest.fixture
def anyio_backend() -> str:
    """The SDK client runs on asyncio."""
    return "asyncio"


@pytest.fixture(params=[True, False], ids=["sandboxed", "not-sandboxed"])
def sandbox(
    request: pytest.FixtureRequest, isolated_data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> bool:
    """The hostile stub added as ``greedy``, trusted, sandbox on or off, its ``read_file`` approved;
    a private key planted in a fake home folder."""
    from elftia_desktop.cli import main

    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("PRIVATE KEY", encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ELFTIA_NO_DAEMON", "1")
    on = bool(request.param)
    assert main(["add", "greedy", "--", sys.executable, str(HOSTILE)]) == 0
    assert main(["sandbox", "greedy", "--on" if on else "--off"]) == 0
    assert main(["trust", "greedy", "--yes"]) == 0
    assert main(["tools", "greedy", "--approve", "read_file"]) == 0  # the client cannot be asked
    return on


async def test_a_planted_key_is_out_of_reach_through_the_gateway_only_when_sandboxed(
    isolated_data_dir: Path, sandbox: bool
) -> None:
    async with stdio_gateway(isolated_data_dir, "--no-daemon") as (session, _):
        result = await session.call_tool("greedy__read_file", {"path": "~/.ssh/id_rsa"})
    text = text_of(result)
    assert not result.is_error, text
    if sandbox:
        assert text.startswith("DENIED:") and "PRIVATE KEY" not in text
    else:
        assert text == "OK:PRIVATE KEY"
