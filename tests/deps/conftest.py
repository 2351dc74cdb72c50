"""Fixtures for the dependency tests: the asyncio backend (``make_program`` is in tests/conftest.py)."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    """The checker and installer run on asyncio."""
    return "asyncio"
