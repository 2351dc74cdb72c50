"""Issue 34: a skill entry (SEP-2640) is checked field by field; files and frontmatter against it."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import pytest

from elftia_desktop.core.skill_pins import SkillPins, skill_pin_store
from elftia_desktop.core.skills import SkillError, parse_skill, verify_file, verify_frontmatter

BODY = b"---\nname: notes\ndescription: 'Keep notes'\n---\nWrite things down.\n"
URI = "skill://notes/SKILL.md"


def entry(**changes: Any) -> dict[str, Any]:
    """A valid entry for a one-file skill, with ``changes`` applied."""
    digest = "sha256:" + hashlib.sha256(BODY).hexdigest()
    base: dict[str, Any] = {
        "uri": URI,
        "frontmatter": {"name": "notes", "description": "Keep notes"},
        "resources": [{"uri": URI, "digest": digest, "size": len(BODY)}],
    }
    return base | changes


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"uri": "skill://notes/README.md"}, "skill uri"),
        ({"frontmatter": {"name": "notes"}}, "name and description"),
        ({"uri": "skill://other/SKILL.md"}, "last segment must be the skill's name"),
        ({"resources": None}, "resources must be an array"),
        ({"resources": [{"uri": URI, "digest": "md5:abc", "size": 1}]}, r"resources\[0\]\.digest"),
        ({"resources": [{"uri": "skill://evil/x", "digest": "sha256:" + "0" * 64, "size": 1}]}, r"\.uri must"),
        ({"resources": [{"uri": URI, "digest": "sha256:" + "0" * 64, "size": -1}]}, r"\.size"),
        ({"resources": [{"uri": URI + "x", "digest": "sha256:" + "0" * 64, "size": 1}]}, "SKILL.md itself"),
        ({"resources": [{"uri": URI, "digest": "sha256:" + "0" * 64, "size": 17 * 2**20}]}, "the limit is"),
    ],
)
def test_a_bad_entry_names_its_field(changes: dict[str, Any], named: str) -> None:
    with pytest.raises(SkillError, match=named):
        parse_skill(entry(**changes))


def test_bytes_and_frontmatter_are_checked_against_the_entry() -> None:
    skill = parse_skill(entry())
    verify_file(skill, URI, BODY)
    verify_frontmatter(skill, BODY.decode())
    same_size = BODY.replace(b"Write", b"Erase")
    with pytest.raises(SkillError, match="digest"):
        verify_file(skill, URI, same_size)
    with pytest.raises(SkillError, match="'description' is 'Keep quiet'"):
        verify_frontmatter(skill, BODY.decode().replace("Keep notes", "Keep quiet"))
    dynamic = parse_skill(entry(resources="dynamic"))
    assert dynamic.files is None and dynamic.content_digest != skill.content_digest


def test_pins_key_skills_by_server_and_uri(tmp_path: Path) -> None:
    pins = SkillPins(skill_pin_store(tmp_path / "mcp-config.json"))
    skill = parse_skill(entry())
    assert pins.check("a", "A", [skill]) == {URI: "pinned"}
    assert pins.check("b", "B", [skill]) == {URI: "pinned"}  # another server: its own first listing
    changed = parse_skill(entry(frontmatter={"name": "notes", "description": "Keep secrets"}))
    assert pins.check("a", "A", [changed]) == {URI: "changed"}
    assert pins.check("b", "B", [skill]) == {URI: "pinned"}
    with pytest.raises(Exception, match="not held back: skill://x"):
        pins.accept("a", ["skill://x"])
    assert pins.accept("a") == [URI] and pins.check("a", "A", [changed]) == {URI: "pinned"}
    if os.name == "posix":
        assert (tmp_path / "skill-pins.json").stat().st_mode & 0o777 == 0o600
