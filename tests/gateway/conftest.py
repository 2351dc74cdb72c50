"""Fixtures of the gateway tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    """The gateway runs on asyncio."""
    return "asyncio"
