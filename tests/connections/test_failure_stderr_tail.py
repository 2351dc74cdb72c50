"""A failed start quotes its own stderr lines only, while the server's log keeps every attempt's."""

from __future__ import annotations

import pytest

from elftia_desktop.connections.logs import ServerLog
from elftia_desktop.connections.service import McpService
from elftia_desktop.core.errors import ServerStartFailed
from tests.connections.pool_helpers import add_server, stdio_input

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]


async def test_a_second_failed_start_quotes_only_its_own_stderr(service: McpService) -> None:
    bad = await add_server(service, stdio_input("exits", "exit3", is_active=False))
    messages: list[str] = []
    for _attempt in range(2):
        with pytest.raises(ServerStartFailed) as caught:
            await service.init_client(bad)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
    assert messages[1].count("fatal: missing API_KEY (exit 3)") == 1
    assert service.server_log(bad).count("fatal: missing API_KEY (exit 3)") == 2


def test_tail_since_a_mark() -> None:
    log = ServerLog(size=3)
    log.add("one")
    mark = log.added
    assert log.tail(since=mark) == []
    for line in ("two", "three", "four", "five"):
        log.add(line)
    assert log.tail(since=mark) == ["three", "four", "five"]  # what the ring still holds of them
    assert log.tail(2, since=mark) == ["four", "five"]
    assert log.tail() == ["three", "four", "five"]
