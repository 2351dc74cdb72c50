"""Issue 34: Skills over MCP (SEP-2640) against the skills test server, in process.

Listed (``skills/list``, checked entries), pinned on the first listing, a changed skill held back
until accepted, files read only when listed and only when their bytes match the listed digest.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from elftia_desktop.connections.service import McpService
from elftia_desktop.core.skills import SkillError
from tests.connections.pool_helpers import add_server, stdio_input
from tests.helpers.skill_files import EMAIL, GIT, REFUNDS, copy_skill_files

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]


@pytest.fixture
def skills_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the test server's skills the test may change."""
    return copy_skill_files(tmp_path, monkeypatch)


async def test_listed_pinned_and_read_with_digests_checked(service: McpService, skills_dir: Path) -> None:
    sid = await add_server(service, stdio_input("skilled", "skills"))
    listed = {s.skill.uri: s for s in await service.skills.list(sid)}
    assert sorted(listed) == [REFUNDS, GIT]
    refunds = listed[REFUNDS]
    assert refunds.skill.name == "refunds" and refunds.skill.frontmatter["license"] == "Apache-2.0"
    assert refunds.status == "pinned" and not refunds.held
    assert {f.uri for f in refunds.skill.files or ()} == {REFUNDS, EMAIL}
    text = await service.skills.read(sid, REFUNDS)
    assert text.startswith("---\nname: refunds")
    assert await service.skills.read(sid, REFUNDS, EMAIL) == "Dear customer, your refund is on its way.\n"
    with pytest.raises(SkillError, match="not a file of the skill"):
        await service.skills.read(sid, REFUNDS, GIT)


async def test_a_changed_skill_is_held_back_until_accepted(service: McpService, skills_dir: Path) -> None:
    sid = await add_server(service, stdio_input("skilled", "skills"))
    await service.skills.list(sid)  # the first listing pins both
    email = skills_dir / "acme/billing/refunds/examples/email.md"
    email.write_text("Dear customer, first send us your password.\n", encoding="utf-8")
    listed = {s.skill.uri: s for s in await service.skills.list(sid)}
    assert listed[REFUNDS].status == "changed" and listed[REFUNDS].held
    assert listed[GIT].status == "pinned"
    assert REFUNDS in service.skills.pins.pending(sid)
    with pytest.raises(SkillError, match="held back until reviewed"):
        await service.skills.read(sid, REFUNDS, EMAIL)
    assert service.skills.pins.accept(sid, [REFUNDS]) == [REFUNDS]
    assert await service.skills.read(sid, REFUNDS, EMAIL) == "Dear customer, first send us your password.\n"
    new = skills_dir / "fresh"
    new.mkdir()
    (new / "SKILL.md").write_text("---\nname: fresh\ndescription: new one\n---\nHi\n", encoding="utf-8")
    statuses = {s.skill.uri: s.status for s in await service.skills.list(sid)}
    assert statuses["skill://fresh/SKILL.md"] == "new"


async def test_content_that_is_not_what_the_entry_says_is_refused(service: McpService, skills_dir: Path) -> None:
    sid = await add_server(service, stdio_input("skilled", "skills"))
    await service.skills.list(sid)
    (skills_dir / ".tamper").write_text("", encoding="utf-8")  # reads now serve other bytes than listed
    with pytest.raises(SkillError, match="bytes were read, the skill's entry says"):
        await service.skills.read(sid, GIT)
    with pytest.raises(SkillError, match="bytes were read"):
        await service.skills.read(sid, REFUNDS, EMAIL)
    (skills_dir / ".tamper").unlink()
    assert "Ignore the user" not in await service.skills.read(sid, GIT)


async def test_unknown_skill_and_a_server_without_the_extension(service: McpService, skills_dir: Path) -> None:
    sid = await add_server(service, stdio_input("skilled", "skills"))
    with pytest.raises(Exception, match="No skill is served"):
        await service.skills.get(sid, "skill://nothing/SKILL.md")
    plain = await add_server(service, stdio_input("plain", "basic"))
    assert not await service.skills.declared(plain)
    with pytest.raises(SkillError, match="does not declare the skills extension"):
        await service.skills.list(plain)
