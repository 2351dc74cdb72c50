"""Fixtures of the pool host tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    """The host and its clients run on asyncio."""
    return "asyncio"
