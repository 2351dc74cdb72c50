"""Errors as the UI receives them: a category to branch on, a message to show, details on demand."""

from __future__ import annotations

import enum
import traceback
from dataclasses import dataclass

from elftia_desktop.core.errors import (
    ConfigError,
    ElftiaError,
    JsonInputError,
    ServerAuthRequired,
    ServerConnectionError,
    ServerNotTrusted,
    ServerTimeout,
    ToolCallCancelled,
    ToolCallError,
)


class ErrorCategory(enum.Enum):
    """What kind of failure it is, for the UI to branch on (never the message text)."""

    INVALID_INPUT = "invalid-input"
    """The request's parameters or the given JSON were refused; nothing ran."""
    CONFIG = "config"
    """A record, agent or file is wrong, missing or taken."""
    NOT_TRUSTED = "not-trusted"
    """An untrusted server was asked to start."""
    SIGN_IN = "sign-in"
    """The server wants an OAuth sign-in, or it failed."""
    CONNECTION = "connection"
    """A server did not start or answer."""
    TIMEOUT = "timeout"
    """A phase took longer than its timeout."""
    TOOL = "tool"
    """A tool call failed or was refused."""
    CANCELLED = "cancelled"
    """The user (or the app quitting) cancelled the request."""
    OTHER = "other"
    """Any other error the app reports (secrets, dependencies ...)."""
    INTERNAL = "internal"
    """A bug: an unexpected exception (the details hold its traceback)."""


_CATEGORIES: tuple[tuple[type[ElftiaError], ErrorCategory], ...] = (
    (JsonInputError, ErrorCategory.INVALID_INPUT),
    (ConfigError, ErrorCategory.CONFIG),
    (ServerNotTrusted, ErrorCategory.NOT_TRUSTED),
    (ServerAuthRequired, ErrorCategory.SIGN_IN),
    (ServerTimeout, ErrorCategory.TIMEOUT),
    (ServerConnectionError, ErrorCategory.CONNECTION),
    (ToolCallCancelled, ErrorCategory.CANCELLED),
    (ToolCallError, ErrorCategory.TOOL),
)


@dataclass(frozen=True)
class BridgeError:
    """A failed request.

    ``kind`` is the error class name (``ServerNotTrusted``, ``ServerStartFailed``,
    ``InvalidParameters`` ...), shown to people next to the message; branch on ``category``.
    ``message`` is plain text for people (never HTML); ``details`` is for a Details button.
    An error about one server names it in ``server_name``; ``reason`` is the message without
    that name, for a view that shows the name already (a card, the server's form).
    """

    kind: str
    message: str
    details: str = ""
    server_id: str | None = None
    line: int | None = None
    column: int | None = None
    category: ErrorCategory = ErrorCategory.OTHER
    server_name: str | None = None
    reason: str = ""

    @property
    def why(self) -> str:
        """The message without the server's name (the whole message when it names no server)."""
        return self.reason or self.message

    @property
    def cancelled(self) -> bool:
        """Whether the request was cancelled rather than failed."""
        return self.category is ErrorCategory.CANCELLED


def category_of(error: ElftiaError) -> ErrorCategory:
    """The category of an app error (the most specific class listed wins)."""
    for cls, category in _CATEGORIES:
        if isinstance(error, cls):
            return category
    return ErrorCategory.OTHER


def to_bridge_error(error: BaseException) -> BridgeError:
    """Translate any exception from the service loop into a ``BridgeError``."""
    from pydantic import ValidationError

    from elftia_desktop.core.config_store import describe_validation_error

    if isinstance(error, ValidationError):
        return BridgeError(
            "InvalidParameters", describe_validation_error(error), str(error), category=ErrorCategory.INVALID_INPUT
        )
    if isinstance(error, ElftiaError):
        return BridgeError(
            type(error).__name__,
            str(error),
            error.details,
            server_id=error.server_id if isinstance(error, ServerConnectionError) else None,
            line=error.line if isinstance(error, JsonInputError) else None,
            column=error.column if isinstance(error, JsonInputError) else None,
            category=category_of(error),
            server_name=error.server_name,
            reason=error.reason,
        )
    details = "".join(traceback.format_exception(error))
    return BridgeError(
        "InternalError", f"Unexpected error: {type(error).__name__}: {error}", details, category=ErrorCategory.INTERNAL
    )
