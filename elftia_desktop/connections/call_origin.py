"""Who a tool call is made for, when it is not this process's own: an app attached to the pool host.

The host sets :data:`ORIGIN` in the task that serves an attached client (``host/clients.py``), so
every call that client causes carries it, and the ``ToolCalled`` event names the app
(``caller``). The window then tells its own calls from other apps' calls.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Protocol


class Origin(Protocol):
    """An attached client as a call's origin."""

    @property
    def label(self) -> str:
        """The app's name as the user knows it (its ``clientInfo`` name, or the command)."""
        ...


ORIGIN: ContextVar[Origin | None] = ContextVar("elftia_call_origin", default=None)
"""The client the running task serves (None: this process's own work)."""


def caller() -> str | None:
    """The label of the current call's origin; None for this process's own calls."""
    origin = ORIGIN.get()
    return origin.label if origin is not None else None
