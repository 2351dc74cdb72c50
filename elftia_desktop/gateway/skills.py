"""Skills over MCP (SEP-2640) served by the gateway: the accepted skills of the servers in scope.

``skills/list`` answers every skill of the servers in scope that declared the extension, less the
held-back ones (changed or new since the user accepted them: ``elftia-mcp skills SERVER --accept``)
and, for an agent, less the ones its skill selection leaves out. ``skills/get`` answers one of
those by the URI of its ``SKILL.md``. A ``resources/read`` of a served skill's file is read from its
server through the verified read (listed file, size and sha256 digest checked) and passed on as
text. Two servers offering the same URI: the first in scope order is served. A server that fails is
left out of the listing (logged), as the other listings do.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from elftia_desktop.connections.skills import ListedSkill
from elftia_desktop.core.errors import ElftiaError

if TYPE_CHECKING:
    from elftia_desktop.gateway.core import Context, Gateway

log = logging.getLogger(__name__)

SKILL_SCHEME = "skill://"


class GetSkillParams(types.RequestParams):
    """``skills/get`` params: the URI of the skill's ``SKILL.md``."""

    uri: str


class GatewaySkills:
    """The ``skills/*`` requests of one gateway."""

    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway

    async def listed(self) -> list[tuple[str, ListedSkill, bool]]:
        """``(server id, skill, served)`` of every skill the servers in scope list, in scope order, one per URI.

        ``served`` is False for a held-back skill and for one the agent's selection leaves out.
        """
        service = self.gateway.service
        scope = self.gateway.scope()
        found: dict[str, tuple[str, ListedSkill, bool]] = {}
        for record in await self.gateway.catalog.records():
            try:
                if not await service.skills.declared(record.id):
                    continue
                items = await service.skills.list(record.id)
            except ElftiaError as exc:
                log.info("%s: skills left out: %s", record.name, exc)
                continue
            for item in items:
                served = not item.held and scope.allows_skill(record, item.skill.uri)
                found.setdefault(item.skill.uri, (record.id, item, served))
        return list(found.values())

    async def served(self) -> list[tuple[str, ListedSkill]]:
        """``(server id, skill)`` of every skill served now."""
        return [(server_id, item) for server_id, item, served in await self.listed() if served]

    async def list_skills(self, ctx: Context, params: types.PaginatedRequestParams) -> dict[str, Any]:
        """``skills/list``: every served skill, in one page."""
        self.gateway.upstreams.track(ctx)
        return {"skills": [item.skill.as_json() for _, item in await self.served()]}

    async def _owner(self, uri: str) -> tuple[str, ListedSkill]:
        for server_id, item in await self.served():
            if item.skill.uri == uri:
                return server_id, item
        raise MCPError(types.INVALID_PARAMS, f"No skill {uri!r} is served here (unknown, held back, or not chosen)")

    async def get_skill(self, ctx: Context, params: GetSkillParams) -> dict[str, Any]:
        """``skills/get``: one served skill by the URI of its ``SKILL.md``."""
        self.gateway.upstreams.track(ctx)
        _, item = await self._owner(params.uri)
        return {"skill": item.skill.as_json()}

    async def read_file(self, uri: str) -> types.ReadResourceResult | None:
        """A file of a served skill (verified against its entry); None when no listed skill has ``uri``.

        A file of a skill that is held back or not chosen is refused (not read through another path).
        """
        if not uri.startswith(SKILL_SCHEME):
            return None
        for server_id, item, served in await self.listed():
            if uri not in {f.uri for f in item.skill.files or ()} | {item.skill.uri}:
                continue
            if not served:
                raise MCPError(
                    types.INVALID_PARAMS, f"{uri} belongs to a skill not served here (held back or not chosen)"
                )
            try:
                text = await self.gateway.service.skills.read(server_id, item.skill.uri, uri)
            except ElftiaError as exc:
                raise MCPError(types.INTERNAL_ERROR, f"{uri}: {exc.reason}") from exc
            mime = "text/markdown" if uri.endswith(".md") else "text/plain"
            return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=text)])
        return None
