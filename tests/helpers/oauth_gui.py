"""GUI side of the OAuth tests: play the browser when the window shows a sign-in address."""

from __future__ import annotations

import threading
from typing import Any

import httpx2

from elftia_desktop.bridge.signals import SignInStarted
from elftia_desktop.core.models import McpServerInput


def oauth_server_input(name: str, url: str, **oauth: Any) -> McpServerInput:
    """An active, trusted Streamable HTTP server with an ``oauth`` object."""
    return McpServerInput.model_validate(
        {"name": name, "type": "http", "config": {"url": url, "oauth": oauth}, "isTrusted": True}
    )


class ThreadBrowser:
    """Connect ``visit`` to ``router.signals.signInStarted``: follows each URL in a thread, as a browser would."""

    def __init__(self) -> None:
        self.urls: list[str] = []
        self.pages: list[str] = []

    def visit(self, started: SignInStarted) -> None:
        self.urls.append(started.url)
        threading.Thread(target=self._follow, args=(started.url,), daemon=True).start()

    def _follow(self, url: str) -> None:
        redirect = httpx2.get(url, follow_redirects=False, timeout=10)
        self.pages.append(httpx2.get(redirect.headers["location"], timeout=10).text)
