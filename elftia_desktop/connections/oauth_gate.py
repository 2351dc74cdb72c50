"""Who may sign in to a server, and when: the gate of one server's OAuth sign-in, in a light module.

The gate (``SignInGate``, one per server) is open only while a foreground action runs (the
CLI, the window's Test/Call/Sign in). A closed gate makes the redirect handler refuse: a
background reconnect never opens a browser, the server goes to ``auth required`` instead.
The SDK's OAuth providers themselves (``oauth_provider.build_auth``) are loaded only for a server
that signs in: their imports (JWT, cryptography) are most of a pool's start otherwise.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable, Iterator
from urllib.parse import urlsplit

import httpx2
from mcp.client.auth import OAuthFlowError

from elftia_desktop.connections.errors import leaf_exception
from elftia_desktop.core.errors import ElftiaError, ServerAuthRequired, ServerConnectionError, ServerStartFailed
from elftia_desktop.core.models import McpServerRecord, McpServerTransport

MAX_SIGN_IN_ATTEMPTS = 3
"""Browser sign-ins one foreground action may start before it gives up."""
SignInPrompt = Callable[[McpServerRecord, str], Awaitable[None]]
"""Shows a person the authorization URL (prints it, opens the browser ...)."""


class SignInGate:
    """One server's sign-in state: foreground actions in progress, attempts, the last flow failure."""

    def __init__(self) -> None:
        self.prompt: SignInPrompt | None = None
        self.foreground = 0
        self.attempts = 0
        self.failure: BaseException | None = None
        self._waited = 0.0
        self._since: float | None = None

    def person_time(self) -> float:
        """Seconds spent waiting on a person at the browser so far (connect timeouts do not count them)."""
        ongoing = time.monotonic() - self._since if self._since is not None else 0.0
        return self._waited + ongoing

    def begin_wait(self) -> None:
        """A person is now signing in in the browser."""
        self._since = time.monotonic()

    def end_wait(self) -> None:
        """The browser came back (or the sign-in ended)."""
        if self._since is not None:
            self._waited += time.monotonic() - self._since
            self._since = None

    @property
    def interactive(self) -> bool:
        """True while a person is waiting on an action and can sign in."""
        return self.foreground > 0 and self.prompt is not None

    @contextlib.contextmanager
    def open(self) -> Iterator[None]:
        """Let sign-ins happen for the duration of one foreground action."""
        if self.foreground == 0:
            self.attempts = 0
        self.foreground += 1
        try:
            yield
        finally:
            self.foreground -= 1

    def record(self, exc: BaseException) -> None:
        """Remember why the OAuth flow failed (the transport swallows it)."""
        self.failure = exc

    def explain(self, error: ElftiaError, record: McpServerRecord, http_status: int | None) -> ElftiaError:
        """The error to report: a sign-in problem when the flow failed or the server still says 401/403."""
        failure, self.failure = self.failure, None
        if not oauth_applies(record):
            return error
        if failure is not None:
            return describe_flow_failure(failure, record)
        if record.config.oauth is None:  # discovered: only a challenge leads to a sign-in, and none came
            return error
        if http_status in (401, 403) and not isinstance(error, ServerAuthRequired):
            return ServerAuthRequired(
                f"the server refused the sign-in (HTTP status {http_status}); sign in again",
                record.id,
                server_name=record.name,
            )
        return error


def oauth_applies(record: McpServerRecord) -> bool:
    """Whether OAuth sign-in applies: any remote server, unless it carries credentials of its own.

    Its own credentials: an Authorization header, or a user name in the URL (``https://user:pw@host``, sent
    as Basic authentication, which an OAuth provider in its place would drop).

    No ``oauth`` object is needed: a server that answers 401 with a ``WWW-Authenticate`` challenge
    is signed in to by discovery (the object only adds what discovery cannot know).
    """
    if record.type is McpServerTransport.STDIO:
        return False
    if record.config.oauth is not None:
        return True
    if urlsplit(record.config.url or "").username:
        return False
    return not any(name.lower() == "authorization" for name in record.config.headers)


def describe_flow_failure(exc: BaseException, record: McpServerRecord) -> ElftiaError:
    """A failure inside the OAuth flow, in words: a refused resource, or a sign-in that did not work."""
    exc = leaf_exception(exc)
    if isinstance(exc, ServerConnectionError):
        return exc
    text = str(exc) or type(exc).__name__
    if isinstance(exc, OAuthFlowError) and text.startswith("Protected resource "):
        return ServerStartFailed(
            "refused to sign in: the server's OAuth metadata names a different resource than its "
            f"URL ({text.removeprefix('Protected resource ')}); check the URL",
            record.id,
            server_name=record.name,
        )
    name = record.name
    if isinstance(exc, OAuthFlowError):
        return ServerAuthRequired(f"sign-in failed: {text}", record.id, server_name=name)
    if isinstance(exc, httpx2.TransportError):
        return ServerStartFailed(f"the authorization server could not be reached: {text}", record.id, server_name=name)
    return ServerAuthRequired(f"sign-in failed: {type(exc).__name__}: {text}", record.id, server_name=name)
