"""The agent engine's tool interface (TinyElf's ``ITool``)."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class ITool(Protocol):
    """A tool an agent can call: a name, a description, a JSON Schema for its parameters, and ``execute``.

    ``execute`` never raises for a failure the agent should see (a tool error, a timeout, a
    lost connection): it returns a text that says what went wrong, so the agent can react.
    ``needs_approval`` tells whether ``execute`` puts the call to a person first; a call that
    person (or nobody) allowed is such a text too.
    """

    @property
    def name(self) -> str:
        """The name the model calls the tool by (unique within a registry)."""
        ...

    @property
    def description(self) -> str:
        """What the tool does, for the model."""
        ...

    @property
    def parameters(self) -> dict[str, Any]:
        """The JSON Schema of the parameters object."""
        ...

    async def needs_approval(self, params: dict[str, Any]) -> bool:
        """Whether running it with ``params`` asks a person first (it is not auto-approved)."""
        ...

    async def execute(self, params: dict[str, Any]) -> str:
        """Run the tool with ``params`` and return its result as text."""
        ...
