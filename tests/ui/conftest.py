"""Fixtures for the dialog tests: a router over the real services in this test's data folder."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.config_store import ConfigStore
from tests.helpers.live_router import live_router
from tests.ui.qt_cleanup import delete_closed_widgets  # noqa: F401 - an autouse fixture


@pytest.fixture
def router() -> Iterator[McpRouter]:
    """A router over real services; the config starts empty (no first-run servers)."""
    ConfigStore().mutate(lambda records: None)
    with live_router() as (router, _loop):
        yield router
