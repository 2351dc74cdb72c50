"""The app's exception tree. Every error a user may see is one of these::

    ElftiaError
    ├── ConfigError                 the config file or a server definition is wrong
    │   ├── ConfigCorrupt           the file could not be parsed (moved aside)
    │   ├── ConfigTooNew            written by a newer version; left untouched
    │   ├── JsonInputError          pasted/imported JSON is malformed (line, column)
    │   ├── DuplicateServerName     a name is already taken
    │   ├── ServerNotFound          no server with that id or name
    │   ├── DuplicateAgentName      an agent name is already taken
    │   ├── AgentNotFound           no agent with that id or name
    │   └── UnsafePermissions       the data folder or a config file is writable by every user
    ├── SecretStoreError            a secret could not be stored or read
    ├── ServerConnectionError       a server could not be reached or used
    │   ├── ServerStartFailed       command missing, exited with code N, HTTP status N ...
    │   ├── ServerTimeout           a phase took longer than its timeout
    │   ├── ServerNotTrusted        an untrusted server was asked to start
    │   └── ServerAuthRequired      the server wants an OAuth sign-in (or the sign-in failed)
    ├── ToolCallError               a tool call failed or was refused
    │   └── ToolCallCancelled       the user cancelled a running call

An error about one server names it in ``server_name`` and says why in ``reason``; its text reads
"name: reason". A UI that shows the name already (a card, a form) shows ``reason`` alone.

Errors from the mcp SDK, anyio and httpx2 are translated at the ``connections`` boundary.
"""

from __future__ import annotations


class ElftiaError(Exception):
    """Base of every error the app reports to a user.

    Args:
        reason: what went wrong; the whole message when ``server_name`` is None.
        server_name: the server the error is about (the message then reads "name: reason").
        details: a long part left out of the message, for a Details button or the lines after it.
    """

    def __init__(self, reason: str = "", *, server_name: str | None = None, details: str = "") -> None:
        super().__init__(f"{server_name}: {reason}" if server_name else reason)
        self.reason = reason
        """Why, without the server's name."""
        self.server_name = server_name
        """The server the error is about, or None."""
        self.details = details
        """A long part kept out of the message (a list of folders), shown on demand; "" when none."""

    @property
    def message(self) -> str:
        """The user-facing message."""
        return str(self)


class ConfigError(ElftiaError):
    """The config file or a server definition is not usable."""


class ConfigCorrupt(ConfigError):
    """The config file could not be read; it was moved aside to ``moved_to``."""

    def __init__(self, message: str, moved_to: str | None = None) -> None:
        super().__init__(message)
        self.moved_to = moved_to


class UnsafePermissions(ConfigError):
    """The data folder or a config file can be changed by every user; the message says how to fix it."""


class ConfigTooNew(ConfigError):
    """The config file was written by a newer version of the app."""


class JsonInputError(ConfigError):
    """JSON text given by a user is malformed or of the wrong shape."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


class DuplicateServerName(ConfigError):
    """A server with that name (case-insensitive) exists already."""


class ServerNotFound(ConfigError):
    """No server has that id or name."""


class DuplicateAgentName(ConfigError):
    """An agent with that name (case-insensitive) exists already."""


class AgentNotFound(ConfigError):
    """No agent has that id or name."""


class SecretStoreError(ElftiaError):
    """A secret could not be stored or read."""


class ServerConnectionError(ElftiaError):
    """A server could not be reached or used."""

    def __init__(
        self, message: str, server_id: str | None = None, *, server_name: str | None = None, details: str = ""
    ) -> None:
        super().__init__(message, server_name=server_name, details=details)
        self.server_id = server_id


class ServerStartFailed(ServerConnectionError):
    """The server did not start or the endpoint did not answer as an MCP server."""


class ServerTimeout(ServerConnectionError):
    """A phase (connect, list, call) took longer than its timeout."""


class ServerNotTrusted(ServerConnectionError):
    """The server came from an import or pasted JSON and was not confirmed yet."""


class ServerAuthRequired(ServerConnectionError):
    """The server wants an OAuth sign-in, or a sign-in did not succeed."""


class ToolCallError(ElftiaError):
    """A tool call failed or was refused (disabled tool, unknown tool)."""


class ToolCallCancelled(ToolCallError):
    """The user cancelled a running tool call; the server was sent ``notifications/cancelled``."""


def is_input_error(error: ElftiaError) -> bool:
    """Whether the error is the request's fault (a wrong field, a taken name, an unknown id), not a file's.

    The CLI exits 2 for these and 1 for the others.
    """
    return isinstance(error, ConfigError) and not isinstance(error, ConfigCorrupt | ConfigTooNew)
