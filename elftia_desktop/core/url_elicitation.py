"""URL-mode elicitation: a server asks the user to open an address (a sign-in, a payment) out of band.

Every asker in Elftia (the window, the terminal, the gateway's client) takes ``(server id,
message, requested schema)``; a URL-mode question travels as an empty form schema with one extra
key, :data:`URL_KEY`, holding the address, its domain and the elicitation id, so each asker can
show the domain prominently and open nothing until the user says so. Accepting means "I will
open it" (the window opens it on a click of its own), and the consent is written to the server's
log (:func:`consent_line`) so it shows in Activity and ``elftia-mcp logs``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

URL_KEY = "x-elftia-url-elicitation"
"""The schema key that marks a URL-mode question (removed before a schema goes anywhere else)."""


@dataclass(frozen=True)
class UrlQuestion:
    """The address a server asks the user to open."""

    url: str
    domain: str
    """The host, lower-case (what the user must check): ``accounts.example.com``."""
    elicitation_id: str
    https: bool

    def as_json(self) -> dict[str, Any]:
        """The marker's JSON form."""
        return {"url": self.url, "domain": self.domain, "elicitationId": self.elicitation_id, "https": self.https}


def url_question(url: str, elicitation_id: str) -> UrlQuestion:
    """The question for ``url``; its domain is the URL's host (IDN kept as sent, lower-cased)."""
    parts = urlsplit(url)
    return UrlQuestion(url, (parts.hostname or "").lower(), elicitation_id, parts.scheme.lower() == "https")


def url_schema(question: UrlQuestion) -> dict[str, Any]:
    """An empty form schema carrying the URL question."""
    return {"type": "object", "properties": {}, URL_KEY: question.as_json()}


def question_in(schema: Mapping[str, Any] | None) -> UrlQuestion | None:
    """The URL question a schema carries, or None for a plain form."""
    marker = schema.get(URL_KEY) if isinstance(schema, Mapping) else None
    if not isinstance(marker, Mapping) or not isinstance(marker.get("url"), str):
        return None
    return url_question(str(marker["url"]), str(marker.get("elicitationId") or ""))


def consent_line(question: UrlQuestion, action: str) -> str:
    """The server-log line recording the user's answer to a URL question."""
    verb = {"accept": "agreed to open", "decline": "declined to open"}.get(action, "dismissed")
    return f"[elicitation] the user {verb} {question.domain or 'an address'} ({question.url})"
