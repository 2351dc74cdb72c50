"""The in-flight region the shim and the host share: the last whole write survives a torn one."""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator

import pytest

from elftia_desktop.host.adopt_region import SLOT, InFlight, create_fd


@pytest.fixture
def fd() -> Iterator[int]:
    """A fresh region's descriptor."""
    descriptor = create_fd()
    yield descriptor
    os.close(descriptor)


def test_the_other_side_reads_what_is_in_flight(fd: int) -> None:
    host, shim = InFlight(fd), InFlight(fd)
    assert shim.read() == []
    for request_id in (1, "two", 3):
        host.add(request_id)
    host.remove(1)
    host.remove("never sent")
    assert shim.read() == ["two", 3]
    host.remove("two")
    host.remove(3)
    assert shim.read() == []


def test_a_write_torn_by_a_kill_leaves_the_previous_one(fd: int) -> None:
    host, shim = InFlight(fd), InFlight(fd)
    host.add(7)
    host.add(8)
    generation = struct.unpack_from("<Q", os.pread(fd, 8, 0))[0]
    other_slot = 8 + ((generation + 1) % 2) * (4 + SLOT)
    os.pwrite(fd, struct.pack("<I", 40) + b"[7,8,9,10,1", other_slot)  # the kill came mid-write
    assert shim.read() == [7, 8]


def test_more_ids_than_a_slot_holds_keeps_a_whole_list(fd: int) -> None:
    host, shim = InFlight(fd), InFlight(fd)
    for index in range(5000):
        host.add(f"request-{index:05d}")
    ids = shim.read()
    assert 0 < len(ids) < 5000 and ids == [f"request-{index:05d}" for index in range(len(ids))]
