"""Issue 35: which OS reads stdin with a thread, and the thread reader itself on a real pipe."""

from __future__ import annotations

import asyncio
import os

import pytest

from elftia_desktop.platform.pipes import feed_from_thread, loop_reads_pipes


def test_only_windows_needs_the_reader_thread() -> None:
    assert not loop_reads_pipes("win32")
    assert loop_reads_pipes("linux") and loop_reads_pipes("darwin")


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_thread_feeds_every_byte_then_end_of_input(anyio_backend: str) -> None:
    read_end, write_end = os.pipe()
    reader = asyncio.StreamReader()
    thread = feed_from_thread(read_end, reader, asyncio.get_running_loop())
    first = b"one\n" + b"y" * 300_000 + b"\n"
    os.write(write_end, b"one\n")
    assert await reader.readline() == b"one\n"  # delivered while the pipe is still open
    with os.fdopen(write_end, "wb") as writer:
        writer.write(first[4:] + b"tail")
    assert await reader.read() == first[4:] + b"tail"  # read() returns at EOF only
    await asyncio.to_thread(thread.join, 30)
    assert not thread.is_alive()
