"""A stand-in for the person at the browser: it opens the authorization URL and follows the redirect.

``Browser`` is a sign-in prompt (``McpService.set_sign_in_prompt``): for each authorization URL
it fetches ``/authorize`` from the real test authorization server, which answers with a redirect
to our loopback callback, and follows that redirect to the callback server, as a browser would.
``mode`` changes what the person does: ``follow`` (sign in), ``deny`` (the server's
``access_denied`` answer), ``forge`` (first a callback with a wrong ``state``, then the real one).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import httpx2

from elftia_desktop.core.models import McpServerRecord

Mode = Literal["follow", "deny", "forge"]


@dataclass
class Browser:
    """Records every URL it was shown and what the callback answered."""

    mode: Mode = "follow"
    delay: float = 0.0
    """Seconds the person takes before the browser goes to the URL."""
    urls: list[str] = field(default_factory=list)
    answers: list[tuple[int, str]] = field(default_factory=list)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    async def __call__(self, record: McpServerRecord, url: str) -> None:
        self.urls.append(url)
        self.tasks.append(asyncio.get_running_loop().create_task(self._visit(url)))

    async def _visit(self, url: str) -> None:
        await asyncio.sleep(self.delay)
        query = parse_qs(urlsplit(url).query)
        callback = query["redirect_uri"][0]
        async with httpx2.AsyncClient(timeout=10.0) as client:
            if self.mode == "deny":
                target = f"{callback}?{urlencode({'error': 'access_denied', 'state': query['state'][0]})}"
                await self._get(client, target)
                return
            response = await client.get(url, follow_redirects=False)
            location = response.headers.get("location")
            if location is None:  # an error page: the person gives up, so the app does not wait 5 minutes
                self.answers.append((response.status_code, response.text))
                failed = {"error": "server_error", "error_description": response.text[:200], "state": query["state"][0]}
                await self._get(client, f"{callback}?{urlencode(failed)}")
                return
            if self.mode == "forge":
                parts = urlsplit(location)
                forged = {k: v[0] for k, v in parse_qs(parts.query).items()} | {"state": "forged"}
                await self._get(client, urlunsplit(parts._replace(query=urlencode(forged))))
            await self._get(client, location)

    async def _get(self, client: httpx2.AsyncClient, url: str) -> None:
        response = await client.get(url)
        self.answers.append((response.status_code, response.text))
