"""Fixtures for tests of the whole window against the real services."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from elftia_desktop.bridge.router import McpRouter
from tests.helpers.live_router import live_router
from tests.ui.qt_cleanup import delete_closed_widgets  # noqa: F401 - an autouse fixture


@pytest.fixture
def router() -> Iterator[McpRouter]:
    """A router over real services in this test's data folder."""
    with live_router() as (router, _loop):
        yield router
