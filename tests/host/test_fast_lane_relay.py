"""The fast lane's calls on the raw relay answer exactly as the SDK path does, for both server eras.

The host's own service, gateway and lanes in this process over real ``basic`` servers (stdio);
the app's side of each lane is an in-memory channel (``lane_helpers.py``). Each relayed answer is
checked against the same call on the SDK path (``FastLane.respond``), and ``relay.pending``
right after ``take`` tells which path a call took.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import pytest
from mcp_types import version as version_registry

from elftia_desktop.connections.call_origin import ORIGIN
from tests.gateway.gateway_helpers import add_stdio, open_catalog, poll
from tests.host.lane_helpers import Rig, call_payload, rig

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]
MODES = ["auto", "legacy"]
"""The server's era: 2026-07-28 (``server/discover``) or the 2025-11-25 handshake."""


def basic(data_dir: Path, mode: str) -> str:
    """Add ``alpha`` (basic) speaking ``mode``; its id."""
    return add_stdio(open_catalog(data_dir), "alpha", "basic", config={"protocol": mode}).id


async def relayed_and_sdk(
    r: Rig, sid: str, version: str, name: str, arguments: dict[str, Any], *, relayed: bool = True
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The lane's answer to the call, and the SDK path's answer to the same call (same client version)."""
    lane, channel = r.lane(version)
    lane.take(call_payload(7, name, arguments))
    assert bool(r.relay(sid).pending) is relayed
    answer = await channel.answer(7)
    return answer, await lane.respond(7, name, arguments, None)


@pytest.mark.parametrize("mode", MODES)
async def test_results_tool_errors_and_server_errors_equal_the_sdk_paths(isolated_data_dir: Path, mode: str) -> None:
    sid = basic(isolated_data_dir, mode)
    async with rig(isolated_data_dir) as r:
        for version in version_registry.HANDSHAKE_PROTOCOL_VERSIONS:
            answer, sdk = await relayed_and_sdk(r, sid, version, "alpha__add", {"a": 2, "b": 3})
            assert answer == sdk and answer["result"]["structuredContent"] == {"sum": 5}
            assert "resultType" not in answer["result"] and "ttlMs" not in answer["result"]
        answer, sdk = await relayed_and_sdk(r, sid, "2025-11-25", "alpha__echo", {"text": "hé \n ☃"})
        assert answer == sdk and answer["result"]["content"] == [{"type": "text", "text": "hé \n ☃"}]
        answer, sdk = await relayed_and_sdk(r, sid, "2025-06-18", "alpha__fail", {"reason": "no way"})
        assert answer == sdk and answer["result"]["isError"] is True
        # the server's own JSON-RPC error (bad arguments): reported in the result, as call_downstream does
        answer, sdk = await relayed_and_sdk(r, sid, "2025-11-25", "alpha__add", {"a": "x"})
        assert answer == sdk and answer["result"]["isError"] is True
        # null for an optional argument: omitted on both paths
        answer, sdk = await relayed_and_sdk(r, sid, "2025-11-25", "alpha__crash", {"code": None}, relayed=True)
        assert answer["result"]["isError"] is True and "exited with code 7" in answer["result"]["content"][0]["text"]


async def test_unknown_disabled_and_untrusted_are_refused_as_the_sdk_path_refuses(isolated_data_dir: Path) -> None:
    sid = basic(isolated_data_dir, "auto")
    catalog = open_catalog(isolated_data_dir)
    async with rig(isolated_data_dir) as r:
        answer, sdk = await relayed_and_sdk(r, sid, "2025-11-25", "alpha__nope", {}, relayed=False)
        assert answer == sdk and answer["error"]["code"] == -32602
        catalog.set_tool_flag(sid, "echo", "enabled", False)
        answer, sdk = await relayed_and_sdk(r, sid, "2025-11-25", "alpha__echo", {"text": "x"}, relayed=False)
        assert answer == sdk and "is disabled" in answer["result"]["content"][0]["text"]
        catalog.set_tool_flag(sid, "echo", "enabled", True)
        answer, sdk = await relayed_and_sdk(r, sid, "2025-11-25", "alpha__pid", {}, relayed=False)  # file changed
        answer, sdk = await relayed_and_sdk(r, sid, "2025-11-25", "alpha__pid", {})  # read again: relayed
        assert answer == sdk
        catalog.update(sid, {"isTrusted": False})
        answer, sdk = await relayed_and_sdk(r, sid, "2025-11-25", "alpha__echo", {"text": "x"}, relayed=False)
        assert answer == sdk and "not trusted" in answer["result"]["content"][0]["text"]


@pytest.mark.parametrize("mode", MODES)
async def test_progress_goes_to_the_callers_token(isolated_data_dir: Path, mode: str) -> None:
    sid = add_stdio(open_catalog(isolated_data_dir), "ex", "explore", config={"protocol": mode}).id
    async with rig(isolated_data_dir) as r:
        lane, channel = r.lane()
        lane.take(call_payload(1, "ex__count", {"steps": 3, "delay": 0.01}, token="tok-1"))
        assert r.relay(sid).pending
        answer = await channel.answer(1)
        progress = [m["params"] for m in channel.notes("notifications/progress")]
        assert [p["progress"] for p in progress] == [1, 2, 3] and {p["progressToken"] for p in progress} == {"tok-1"}
        assert progress[0]["total"] == 3 and progress[0]["message"] == "step 1 of 3"
        assert channel.sent.index(answer) == len(channel.sent) - 1  # every progress before the result


@pytest.mark.parametrize("mode", MODES)
async def test_cancel_and_timeout_tell_the_server(isolated_data_dir: Path, mode: str) -> None:
    sid = basic(isolated_data_dir, mode)
    called: list[dict[str, Any]] = []
    async with rig(isolated_data_dir, call_timeout=0.5) as r:
        r.service.events.on("tool:called", called.append)
        lane, channel = r.lane()
        ORIGIN.set(SimpleNamespace(label="app one"))  # what the host sets for an attached client's tasks
        lane.take(call_payload(1, "alpha__slow", {"seconds": 30}))
        ORIGIN.set(None)
        assert r.relay(sid).pending
        await anyio.sleep(0.1)
        lane.take(b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}')
        log = r.service.server_log
        assert await poll(lambda: any("slow cancelled" in line for line in log(sid)), limit=30)
        assert not r.relay(sid).pending and not [m for m in channel.sent if m.get("id") == 1]
        assert called[-1]["outcome"] == "cancelled" and called[-1]["caller"] == "app one"
        assert r.callers.running == 0
        lane.take(call_payload(2, "alpha__slow", {"seconds": 30}))
        answer = await channel.answer(2)
        assert answer["result"]["isError"] is True and "timed out" in answer["result"]["content"][0]["text"]
        assert await poll(lambda: sum("slow cancelled" in line for line in log(sid)) == 2, limit=30)
        assert called[-1]["outcome"] == "failed" and called[-1]["caller"] is None


async def test_a_server_crash_mid_call_fails_the_calls_in_flight(isolated_data_dir: Path) -> None:
    sid = basic(isolated_data_dir, "auto")
    async with rig(isolated_data_dir) as r:
        lane, channel = r.lane()
        lane.take(call_payload(1, "alpha__slow", {"seconds": 30}))
        lane.take(call_payload(2, "alpha__crash", {"code": 9}))
        assert len(r.relay(sid).pending) == 2
        answers = [await channel.answer(1), await channel.answer(2)]
        for answer in answers:
            text = answer["result"]["content"][0]["text"]
            assert answer["result"]["isError"] is True and "exited with code 9" in text
        assert r.callers.running == 0
        assert r.service.pool.entries[sid].connection is None
        lane.take(call_payload(3, "alpha__echo", {"text": "back"}))  # no connection: the SDK path reconnects
        assert (await channel.answer(3))["result"]["content"][0]["text"] == "back"
        answer, _sdk = await relayed_and_sdk(r, sid, "2025-11-25", "alpha__echo", {"text": "again"})
        assert answer["result"]["content"][0]["text"] == "again"


@pytest.mark.parametrize("mode", MODES)
async def test_elicitation_goes_to_the_calling_client_among_three(isolated_data_dir: Path, mode: str) -> None:
    """``ask_name``: mid-call on the handshake; ``input_required`` rounds (the session's driver) on 2026-07-28."""
    sid = basic(isolated_data_dir, mode)
    async with rig(isolated_data_dir) as r:
        lanes = [r.lane(capabilities={"elicitation": {}}) for _ in range(3)]
        for index, (lane, _channel) in enumerate(lanes):
            lane.take(call_payload(index, "alpha__echo", {"text": f"warm {index}"}))
        asker, asker_channel = lanes[1]
        asker.take(call_payload(10, "alpha__ask_name", {}))
        assert r.relay(sid).pending
        with anyio.fail_after(30):
            while not asker_channel.notes("elicitation/create"):
                await asker_channel.arrived.wait()
                asker_channel.arrived.clear()
        question = asker_channel.notes("elicitation/create")[0]
        for index, (lane, channel) in enumerate(lanes):  # the others keep calling meanwhile
            lane.take(call_payload(20 + index, "alpha__echo", {"text": f"during {index}"}))
            answer = await channel.answer(20 + index)
            assert answer["result"]["content"][0]["text"] == f"during {index}"
            assert index == 1 or not channel.notes("elicitation/create")
        reply = {"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept", "content": {"name": "Grace"}}}
        asker.take(_json(reply))
        answer = await asker_channel.answer(10)
        assert answer["result"]["content"][0]["text"] == "hello Grace (36)"
        assert r.callers.running == 0


async def test_three_clients_interleaved(isolated_data_dir: Path) -> None:
    sid = basic(isolated_data_dir, "auto")
    async with rig(isolated_data_dir) as r:
        lanes = [r.lane(version) for version in ("2025-03-26", "2025-06-18", "2025-11-25")]
        for round_ in range(20):
            for index, (lane, _channel) in enumerate(lanes):
                lane.take(call_payload(round_, "alpha__echo", {"text": f"{index}-{round_}"}))
        assert len(r.relay(sid).pending) > 1
        for index, (_lane, channel) in enumerate(lanes):
            for round_ in range(20):
                answer = await channel.answer(round_)
                assert answer["result"]["content"] == [{"type": "text", "text": f"{index}-{round_}"}]
        assert r.callers.running == 0


def _json(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode()
