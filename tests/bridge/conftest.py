"""Fixtures for the router tests: a router over the real services in this test's data folder."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.bridge.service_loop import ServiceLoop
from elftia_desktop.bridge.services import AppServices
from elftia_desktop.core.config_store import ConfigStore
from tests.helpers.live_router import live_router


@pytest.fixture
def live() -> Iterator[tuple[McpRouter, ServiceLoop[AppServices]]]:
    """A router and its service loop; the config starts empty (no first-run servers)."""
    ConfigStore().mutate(lambda records: None)
    with live_router() as pair:
        yield pair


@pytest.fixture
def router(live: tuple[McpRouter, ServiceLoop[AppServices]]) -> McpRouter:
    """The router of :func:`live`."""
    return live[0]
