"""Errors as the UI receives them: a kind to branch on, a message to show, details on demand."""

from __future__ import annotations

import traceback
from dataclasses import dataclass

from elftia_desktop.core.errors import ElftiaError, JsonInputError, ServerConnectionError


@dataclass(frozen=True)
class BridgeError:
    """A failed request.

    ``kind`` is the error class name (``ServerNotTrusted``, ``ServerStartFailed``,
    ``InvalidParameters`` ...); ``message`` is for people; ``details`` is for a Details button.
    """

    kind: str
    message: str
    details: str = ""
    server_id: str | None = None
    line: int | None = None
    column: int | None = None


def to_bridge_error(error: BaseException) -> BridgeError:
    """Translate any exception from the service loop into a ``BridgeError``."""
    from pydantic import ValidationError

    from elftia_desktop.core.config_store import describe_validation_error

    if isinstance(error, ValidationError):
        return BridgeError("InvalidParameters", describe_validation_error(error), str(error))
    if isinstance(error, JsonInputError):
        return BridgeError(type(error).__name__, str(error), line=error.line, column=error.column)
    if isinstance(error, ServerConnectionError):
        return BridgeError(type(error).__name__, str(error), server_id=error.server_id)
    if isinstance(error, ElftiaError):
        return BridgeError(type(error).__name__, str(error))
    details = "".join(traceback.format_exception(error))
    return BridgeError("InternalError", f"Unexpected error: {type(error).__name__}: {error}", details)
