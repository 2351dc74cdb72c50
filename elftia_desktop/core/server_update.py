"""``McpServerUpdate``: the typed change ``mcp:update`` takes (the fields given are set, the others kept)."""

from __future__ import annotations

from typing import Any

from pydantic.alias_generators import to_camel

from elftia_desktop.core.model_base import CamelModel
from elftia_desktop.core.models import McpSandbox, McpServerConfig, McpServerScope, McpServerTransport


class McpServerUpdate(CamelModel):
    """The fields of one server to change; a field not given keeps its value, one given as None is cleared.

    ``config`` sets every config field it has (None clears one); config keys it does not know are kept.
    ``secret_keys``: env or header names the user marked secret.
    """

    name: str | None = None
    type: McpServerTransport | None = None
    config: McpServerConfig | None = None
    scope: McpServerScope | None = None
    project_path: str | None = None
    is_active: bool | None = None
    is_trusted: bool | None = None
    sandbox: McpSandbox | None = None
    secret_keys: list[str] | None = None

    def to_updates(self) -> dict[str, Any]:
        """The change in JSON spelling, as the catalog merges it: only the fields given, cleared ones as null."""
        full = self.model_dump(mode="json", by_alias=True)
        return {to_camel(name): full[to_camel(name)] for name in sorted(self.model_fields_set)}
