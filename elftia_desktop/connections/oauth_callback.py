"""The loopback server that receives the browser's redirect at the end of a sign-in.

It listens on ``127.0.0.1`` (a random free port unless one is given), answers
``GET /callback?code=…&state=…[&iss=…]`` and nothing else. A request whose ``state`` is not the
one of the sign-in in progress is refused (HTTP 400) and does not end the wait: ``state`` is
the token that makes the callback ours. The server closes after the first valid answer or
after ``CALLBACK_TIMEOUT`` seconds; its page tells the user to return to the app.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import logging
import secrets
import socket
from urllib.parse import parse_qs, urlsplit

from mcp.shared.auth import AuthorizationCodeResult

from elftia_desktop.core.errors import ServerAuthRequired

log = logging.getLogger(__name__)

CALLBACK_PATH = "/callback"
CALLBACK_TIMEOUT = 300.0
"""Seconds the callback server waits for the browser before it gives up."""
_MAX_REQUEST = 16384
APP_TITLE = "Elftia"
"""The app as the callback page names it."""


def free_port() -> int:
    """A port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def redirect_uri(port: int) -> str:
    """The redirect URI registered with the authorization server for ``port``."""
    return f"http://127.0.0.1:{port}{CALLBACK_PATH}"


def _page(title: str, text: str) -> bytes:
    body = (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title></head>"
        "<body style='font-family:sans-serif;max-width:32em;margin:4em auto;text-align:center'>"
        f"<h2>{html.escape(title)}</h2><p>{html.escape(text)}</p></body></html>"
    )
    return body.encode()


class CallbackServer:
    """One sign-in's callback: ``start``, then ``wait`` for the code (closes itself)."""

    def __init__(self, server_name: str, port: int, expected_state: str | None) -> None:
        self.server_name = server_name
        self.port = port
        self.expected_state = expected_state
        self._result: asyncio.Future[AuthorizationCodeResult] | None = None
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        """Listen on 127.0.0.1; ``ServerAuthRequired`` when the port is taken."""
        self._result = asyncio.get_running_loop().create_future()
        try:
            self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)
        except OSError as exc:
            raise ServerAuthRequired(
                f"the sign-in callback port {self.port} on 127.0.0.1 is in use ({exc.strerror})",
                server_name=self.server_name,
            ) from exc

    async def wait(self, timeout: float = CALLBACK_TIMEOUT) -> AuthorizationCodeResult:  # noqa: ASYNC109
        """The code and state the browser brought back; ``ServerAuthRequired`` on timeout or refusal."""
        assert self._result is not None, "start() first"
        try:
            return await asyncio.wait_for(asyncio.shield(self._result), timeout)
        except TimeoutError as exc:
            raise ServerAuthRequired(
                f"no answer from the browser within {timeout / 60:g} minutes; sign in again",
                server_name=self.server_name,
            ) from exc
        finally:
            await self.close()

    async def close(self) -> None:
        """Stop listening (idempotent)."""
        server, self._server = self._server, None
        if server is not None:
            server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 2.0)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10.0)
            status, page = self._answer(head[:_MAX_REQUEST].decode("latin-1").split("\r\n", 1)[0])
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, UnicodeError):
            status, page = "400 Bad Request", _page("Bad request", "This is not a sign-in answer.")
        with contextlib.suppress(OSError):
            writer.write(
                f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {len(page)}\r\n"
                "Cache-Control: no-store\r\nConnection: close\r\n\r\n".encode()
                + page
            )
            await writer.drain()
            writer.close()

    def _answer(self, request_line: str) -> tuple[str, bytes]:
        parts = request_line.split(" ")
        url = urlsplit(parts[1] if len(parts) >= 2 else "")
        if len(parts) < 2 or parts[0] != "GET" or url.path != CALLBACK_PATH:
            return "404 Not Found", _page("Not found", "Nothing here.")
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        state = query.get("state")
        if self.expected_state is not None and not secrets.compare_digest(state or "", self.expected_state):
            log.warning("sign-in callback for %s refused: the state does not match", self.server_name)
            return "400 Bad Request", _page(
                "Not this sign-in", "This answer does not belong to the sign-in in progress; it was ignored."
            )
        assert self._result is not None
        if self._result.done():
            return "409 Conflict", _page("Already done", f"This sign-in is finished. Return to {APP_TITLE}.")
        if "error" in query:
            reason = query.get("error_description") or query["error"]
            self._result.set_exception(
                ServerAuthRequired(
                    f"the authorization server refused the sign-in: {reason}", server_name=self.server_name
                )
            )
            return "200 OK", _page("Sign-in not completed", f"{reason}. Return to {APP_TITLE} to try again.")
        if not query.get("code"):
            return "400 Bad Request", _page("Bad request", "The answer carries no authorization code.")
        self._result.set_result(AuthorizationCodeResult(code=query["code"], state=state, iss=query.get("iss")))
        return "200 OK", _page(f"Signed in to {self.server_name}", f"You can close this tab and return to {APP_TITLE}.")
