"""Host CPU per call on the host's lane: ``.venv/bin/python bench/bench_relay.py [--calls N] [--profile]``.

In this process: the host's own service, hosted gateway and fast lane over a real ``basic`` server
(stdio), the app's side an in-memory channel (``tests/host/lane_helpers.py``). ``--calls`` sequential
``echo`` calls are handed to the lane as the app's bytes; the figure is this process's CPU time
(``time.process_time``) per call until its response is written, for

- ``sdk``: the lane as built: ``ToolCalls.call``'s checks and the SDK ``ClientSession`` (every call's
  one path since the raw relay beside the session was removed, issue 30);
- ``minimal``: the floor, a minimal relay in this process to another ``basic`` server: asyncio
  protocol callbacks on the server's pipes, ``json.loads`` + id rewrite + ``json.dumps`` both ways;
- ``json``: only the JSON work of that minimal relay.

The paths alternate in blocks of 100; the table gives the median block. ``--profile`` prints the
cProfile of the lane's calls (by own time, top 40). ``--protocol legacy`` has the pool speak the
2025-11-25 handshake to the server instead of 2026-07-28, whose per-request ``_meta`` makes every
request larger.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.gateway.gateway_helpers import add_stdio, open_catalog  # noqa: E402
from tests.host.lane_helpers import MemoryChannel, call_payload, rig  # noqa: E402
from tests.servers.serve_http import server_command  # noqa: E402

BLOCK = 100


async def block(lane: Any, channel: MemoryChannel, start: int, count: int, name: str = "basic__echo") -> float:
    """CPU seconds per call over ``count`` sequential echo calls (ids from ``start``)."""
    cpu = time.process_time()
    for request_id in range(start, start + count):
        lane.take(call_payload(request_id, name, {"text": "hi"}))
        await channel.answer(request_id)
        channel.sent.clear()
    return (time.process_time() - cpu) / count


def json_floor(count: int) -> float:
    """CPU seconds per call of a minimal relay's JSON work (parse and dump the request and the response)."""
    request = call_payload(1, "basic__echo", {"text": "hi"}).decode()
    response = json.dumps(
        {"jsonrpc": "2.0", "id": "elftia-r-1", "result": {"content": [{"type": "text", "text": "hi"}]}}
    )
    cpu = time.process_time()
    for _ in range(count):
        json.dumps(json.loads(request), separators=(",", ":"))
        json.dumps(json.loads(response), separators=(",", ":"))
    return (time.process_time() - cpu) / count


class MinimalRelay(asyncio.SubprocessProtocol):
    """The minimal relay: the server's stdout by protocol callbacks, each line parsed, its id put back, dumped."""

    def __init__(self, channel: MemoryChannel) -> None:
        self.channel = channel
        self.buffer = b""
        self.ids: dict[str, Any] = {}
        self.stdin: asyncio.WriteTransport | None = None

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        """Lines from the server: each response goes to the app with the app's id."""
        if fd != 1:
            return
        *lines, self.buffer = (self.buffer + data).split(b"\n")
        for line in lines:
            message = json.loads(line)
            message["id"] = self.ids.pop(message.get("id"), message.get("id"))
            self.channel.write(json.dumps(message, separators=(",", ":")).encode())

    def take(self, payload: bytes) -> bool:
        """The app's request to the server under the relay's own id."""
        message = json.loads(payload)
        own = f"m-{message['id']}"
        self.ids[own] = message["id"]
        message["id"] = own
        assert self.stdin is not None
        self.stdin.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        return True


async def minimal_relay(channel: MemoryChannel) -> tuple[MinimalRelay, asyncio.SubprocessTransport]:
    """A ``basic`` server behind a :class:`MinimalRelay`, past its handshake."""
    loop = asyncio.get_running_loop()
    command = server_command("basic")
    transport, relay = await loop.subprocess_exec(lambda: MinimalRelay(channel), *command, stderr=subprocess.DEVNULL)
    relay.stdin = transport.get_pipe_transport(0)  # type: ignore[assignment]
    params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "b", "version": "1"}}
    relay.take(json.dumps({"jsonrpc": "2.0", "id": -1, "method": "initialize", "params": params}).encode())
    await channel.answer(-1)
    assert relay.stdin is not None
    relay.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    return relay, transport


async def measure(data: Path, calls: int, profile: bool) -> dict[str, float]:
    """Median CPU per call of each path (seconds)."""
    async with rig(data) as r:
        sdk_lane, sdk_channel = r.lane()
        minimal_channel = MemoryChannel()
        minimal, transport = await minimal_relay(minimal_channel)
        await block(sdk_lane, sdk_channel, 0, 50)  # warm-up
        await block(minimal, minimal_channel, 0, 50, "echo")
        times: dict[str, list[float]] = {"sdk": [], "minimal": [], "json": []}
        for index in range(max(1, calls // BLOCK)):
            start = 1000 + index * BLOCK
            times["sdk"].append(await block(sdk_lane, sdk_channel, start, BLOCK))
            times["minimal"].append(await block(minimal, minimal_channel, start, BLOCK, "echo"))
            times["json"].append(json_floor(BLOCK))
        transport.close()
        if profile:
            profiler = cProfile.Profile()
            profiler.enable()
            await block(sdk_lane, sdk_channel, 10**6, calls)
            profiler.disable()
            pstats.Stats(profiler).sort_stats("tottime").print_stats(40)
    return {path: statistics.median(values) for path, values in times.items()}


def main() -> None:
    """Run and print the table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--protocol", default="auto", help="the server's protocol field: auto (2026-07-28) or legacy")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        add_stdio(open_catalog(data), "basic", "basic", config={"protocol": args.protocol})
        os.environ["ELFTIA_DATA_DIR"] = folder
        result = anyio.run(measure, data, args.calls, args.profile)
    load = os.getloadavg()[0]
    us = {path: seconds * 1e6 for path, seconds in result.items()}
    print(
        f"host CPU per echo call, median of blocks of {BLOCK} ({args.calls} calls per path), "
        f"server protocol {args.protocol}, load {load:.1f}"
    )
    print(f"- sdk path: {us['sdk']:.0f} us ({us['sdk'] - us['minimal']:.0f} us above the minimal relay)")
    print(f"- minimal relay (protocol callbacks, JSON both ways): {us['minimal']:.0f} us")
    print(f"- of which JSON parse + dump, request and response: {us['json']:.0f} us")


if __name__ == "__main__":
    main()
