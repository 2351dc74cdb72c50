"""Skills over MCP (SEP-2640) from a saved server: ``skills/list``, ``skills/get`` and verified reads.

The SDK has no types for the extension's methods, so they go as plain requests through the
connection's session (the session still stamps each with the negotiated version and our
capabilities). They are asked for only when the server declared ``io.modelcontextprotocol/skills``.
Each listed skill is compared with the pins (:class:`SkillPins`): a skill that changed since it
was accepted is listed as held back, and its files are not read until it is accepted. A file is
read with ``resources/read`` only when the skill's entry lists it, and its bytes must match the
listed size and sha256 digest (``SKILL.md``'s frontmatter must also match the entry's).
"""

from __future__ import annotations

import asyncio
import base64
from dataclasses import dataclass
from typing import Any, Literal

import mcp_types as types
from mcp.client.session import ClientSession

from elftia_desktop.connections.pool import ConnectionPool
from elftia_desktop.connections.records import ServerRecords
from elftia_desktop.core.extensions import SKILLS_EXTENSION
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.core.skill_pins import SkillPins, SkillStatus
from elftia_desktop.core.skills import Skill, SkillError, parse_skill, verify_file, verify_frontmatter
from elftia_desktop.core.tool_pins import LintFinding, lint_texts

MAX_PAGES = 100
"""Pages of ``skills/list`` followed before giving up on a server that never ends its listing."""


class _ListSkills(types.Request[types.PaginatedRequestParams, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"
    params: types.PaginatedRequestParams


class _GetSkillParams(types.RequestParams):
    uri: str


class _GetSkill(types.Request[_GetSkillParams, Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"
    params: _GetSkillParams


class _ListSkillsResult(types.Result):
    skills: list[Any]
    next_cursor: str | None = None


class _GetSkillResult(types.Result):
    skill: Any = None


@dataclass(frozen=True)
class ListedSkill:
    """A skill with its pin status."""

    skill: Skill
    status: SkillStatus

    @property
    def held(self) -> bool:
        """True when it changed (or is new) since it was accepted: held back until reviewed."""
        return self.status != "pinned"

    @property
    def findings(self) -> list[LintFinding]:
        """What the tool lint finds in the frontmatter's texts."""
        texts = [str(v) for v in self.skill.frontmatter.values() if isinstance(v, str)]
        return lint_texts(self.skill.name, texts)

    def as_json(self) -> dict[str, Any]:
        """The entry with ``name``, ``description``, ``status``, ``held``, ``dynamic`` and the lint's ``findings``."""
        skill = self.skill
        extra = {"name": skill.name, "description": skill.description, "status": self.status}
        findings = [{"rule": f.rule, "detail": f.detail} for f in self.findings]
        return skill.as_json() | extra | {"held": self.held, "dynamic": skill.files is None, "findings": findings}


class ServerSkills:
    """The skills of one saved server, checked against the pins."""

    def __init__(self, records: ServerRecords, pool: ConnectionPool, pins: SkillPins) -> None:
        self._records = records
        self._pool = pool
        self.pins = pins

    async def _record(self, server_id: str) -> McpServerRecord:
        """The record of a connected server that declared the extension; ``SkillError`` otherwise."""
        record = await self._records.get(server_id)
        connection = await self._pool.ensure(record)
        declared = connection.era.extensions if connection.era is not None else []
        if SKILLS_EXTENSION not in declared:
            raise SkillError(f"the server does not declare the skills extension ({SKILLS_EXTENSION})")
        return record

    async def declared(self, server_id: str) -> bool:
        """Whether the server declared the skills extension (connects it when needed)."""
        try:
            await self._record(server_id)
        except SkillError:
            return False
        return True

    async def list(self, server_id: str) -> list[ListedSkill]:
        """Every skill the server lists, each with its pin status (the first listing pins them all)."""
        record = await self._record(server_id)
        raw = await self._pool.use(record, "list", self._pool.timeouts(record).list_, _list_all)
        skills = [parse_skill(item) for item in raw]
        status = await asyncio.to_thread(self.pins.check, record.id, record.name, skills)  # the pins file
        return [ListedSkill(skill, status[skill.uri]) for skill in skills]

    async def get(self, server_id: str, uri: str) -> ListedSkill:
        """One skill by the URI of its ``SKILL.md`` (``skills/get``), with its pin status."""
        record = await self._record(server_id)

        async def get(session: ClientSession) -> Any:
            """``skills/get`` on the server's session."""
            request = _GetSkill(params=_GetSkillParams(uri=uri))
            return (await session.send_request(request, _GetSkillResult)).skill

        skill = parse_skill(await self._pool.use(record, "list", self._pool.timeouts(record).list_, get))
        status = await asyncio.to_thread(self.pins.check, record.id, record.name, [skill])  # the pins file
        return ListedSkill(skill, status[skill.uri])

    async def read(self, server_id: str, skill_uri: str, file_uri: str | None = None) -> str:
        """A file of an accepted skill (default its ``SKILL.md``), checked against its entry; as text."""
        listed = await self.get(server_id, skill_uri)
        if listed.held:
            name = self._records.cached(server_id)
            raise SkillError(
                f"{skill_uri} changed since it was accepted and is held back until reviewed "
                f"(elftia-mcp skills {name.name if name else server_id} --accept {skill_uri})"
            )
        uri = file_uri or skill_uri
        if listed.skill.files is not None:
            listed.skill.file(uri)  # an unlisted file is never read
        record = await self._records.get(server_id)
        data = await self._pool.use(record, "list", self._pool.timeouts(record).list_, lambda s: _read_bytes(s, uri))
        verify_file(listed.skill, uri, data)
        text = data.decode("utf-8", errors="replace")
        if uri == skill_uri:
            verify_frontmatter(listed.skill, text)
        return text


async def _list_all(session: ClientSession) -> list[Any]:
    """Every page of ``skills/list``."""
    found: list[Any] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else types.PaginatedRequestParams()
        page = await session.send_request(_ListSkills(params=params), _ListSkillsResult)
        found.extend(page.skills)
        cursor = page.next_cursor
        if not cursor:
            return found
    raise SkillError(f"skills/list did not end after {MAX_PAGES} pages")


async def _read_bytes(session: ClientSession, uri: str) -> bytes:
    """The raw bytes ``resources/read`` returns for ``uri`` (text as UTF-8, a blob decoded)."""
    result = await session.read_resource(uri)
    for content in result.contents:
        if str(content.uri) != uri:
            continue
        if isinstance(content, types.TextResourceContents):
            return content.text.encode("utf-8")
        return base64.b64decode(content.blob)
    raise SkillError(f"{uri}: the server's answer to resources/read holds no content for it")
