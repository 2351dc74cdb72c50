"""Skills over MCP (SEP-2640): a skill's entry, checked as it arrives, and its files checked as they are read.

A server that declares ``io.modelcontextprotocol/skills`` answers ``skills/list`` and ``skills/get``
with entries ``{uri, frontmatter, resources}``: the URI of the skill's ``SKILL.md``, its YAML
frontmatter as JSON, and every file of the skill with the sha256 digest and size of its bytes (or
``"dynamic"`` when the server cannot publish stable digests). An entry is validated here (each bad
field named); a file read later must match its listed size and digest, ``SKILL.md``'s frontmatter
must say what the entry said, and a file the entry does not list is not read at all. The
:attr:`Skill.content_digest` of an entry is what a user's approval is bound to (``skill_pins``).
Pure: no files, no SDK.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from elftia_desktop.core.errors import ElftiaError

MAX_FILES = 512
"""Files per skill every host must accept (the extension's limit)."""
MAX_BYTES = 16 * 1024 * 1024
"""Total bytes per skill every host must accept."""
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")


class SkillError(ElftiaError):
    """A skill entry that breaks the extension's rules, or a file that is not what its entry said."""


@dataclass(frozen=True)
class SkillFile:
    """One file of a skill: its resource URI, ``sha256:{hex}`` digest and size in bytes."""

    uri: str
    digest: str
    size: int


@dataclass(frozen=True)
class Skill:
    """One skill as its server listed it."""

    uri: str
    """The URI of its ``SKILL.md`` (with the server, the skill's identity)."""
    frontmatter: dict[str, Any]
    files: tuple[SkillFile, ...] | None
    """Every file with its digest; None when the server said ``"dynamic"`` (nothing can be verified)."""

    @property
    def name(self) -> str:
        """The frontmatter's ``name`` (a label: two skills may share it)."""
        return str(self.frontmatter.get("name", ""))

    @property
    def description(self) -> str:
        """The frontmatter's ``description``."""
        return str(self.frontmatter.get("description", ""))

    @property
    def total_size(self) -> int:
        """The sum of the files' sizes (0 for a dynamic skill)."""
        return sum(f.size for f in self.files or ())

    @property
    def content_digest(self) -> str:
        """A hash of the frontmatter and every ``(uri, digest, size)``: what an approval is bound to."""
        files = sorted((f.uri, f.digest, f.size) for f in self.files) if self.files is not None else "dynamic"
        payload = json.dumps([self.uri, self.frontmatter, files], sort_keys=True, ensure_ascii=False)
        return "sha256:" + hashlib.sha256(payload.encode()).hexdigest()

    def file(self, uri: str) -> SkillFile:
        """The listed file at ``uri``; ``SkillError`` for a file the entry does not list."""
        for listed in self.files or ():
            if listed.uri == uri:
                return listed
        raise SkillError(f"{uri} is not a file of the skill {self.uri}: an unlisted file is not read")

    def as_json(self) -> dict[str, Any]:
        """The entry in the protocol's JSON shape."""
        resources: Any = "dynamic"
        if self.files is not None:
            resources = [{"uri": f.uri, "digest": f.digest, "size": f.size} for f in self.files]
        return {"uri": self.uri, "frontmatter": self.frontmatter, "resources": resources}


def parse_skill(raw: Any) -> Skill:
    """A checked entry from the wire; ``SkillError`` naming the field that breaks the rules."""
    if not isinstance(raw, Mapping):
        raise SkillError(f"a skill entry must be an object, not {type(raw).__name__}")
    uri = raw.get("uri")
    if not isinstance(uri, str) or not uri.endswith("/SKILL.md"):
        raise SkillError(f"skill uri: expected the URI of a SKILL.md, got {uri!r}")
    frontmatter = raw.get("frontmatter")
    if not isinstance(frontmatter, Mapping) or not all(
        isinstance(frontmatter.get(k), str) for k in ("name", "description")
    ):
        raise SkillError(f"{uri}: frontmatter must be an object with string fields name and description")
    name = frontmatter["name"]
    if uri.removesuffix("/SKILL.md").rsplit("/", 1)[-1] != name:
        raise SkillError(f"{uri}: the path's last segment must be the skill's name {name!r}")
    resources = raw.get("resources")
    files = None if resources == "dynamic" else _files(uri, resources)
    return Skill(uri=uri, frontmatter=dict(frontmatter), files=files)


def _files(uri: str, resources: Any) -> tuple[SkillFile, ...]:
    """The ``resources`` array checked: digests, sizes, SKILL.md present, within the skill, within the limits."""
    if not isinstance(resources, list):
        raise SkillError(f'{uri}: resources must be an array of files or "dynamic", got {resources!r:.60}')
    root = uri.removesuffix("SKILL.md")
    files: list[SkillFile] = []
    for index, item in enumerate(resources):
        where = f"{uri}: resources[{index}]"
        if not isinstance(item, Mapping):
            raise SkillError(f"{where} must be an object")
        file_uri, digest, size = item.get("uri"), item.get("digest"), item.get("size")
        if not isinstance(file_uri, str) or not file_uri.startswith(root) or "/../" in file_uri:
            raise SkillError(f"{where}.uri must be a file inside {root}, got {file_uri!r}")
        if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
            raise SkillError(f"{where}.digest must be sha256: and 64 lowercase hex digits, got {digest!r:.80}")
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise SkillError(f"{where}.size must be a byte count, got {size!r}")
        files.append(SkillFile(file_uri, digest, size))
    if uri not in {f.uri for f in files}:
        raise SkillError(f"{uri}: resources does not list the SKILL.md itself")
    total = sum(f.size for f in files)
    if len(files) > MAX_FILES or total > MAX_BYTES:
        raise SkillError(
            f"{uri}: {len(files)} files of {total} bytes in all; "
            f"the limit is {MAX_FILES} files and {MAX_BYTES} bytes per skill"
        )
    return tuple(files)


def verify_file(skill: Skill, uri: str, data: bytes) -> None:
    """``SkillError`` unless ``data`` (what a read of ``uri`` returned) has the listed size and digest."""
    if skill.files is None:
        return  # a dynamic skill publishes nothing to check against
    listed = skill.file(uri)
    if len(data) != listed.size:
        raise SkillError(f"{uri}: {len(data)} bytes were read, the skill's entry says {listed.size}; not used")
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    if digest != listed.digest:
        raise SkillError(f"{uri}: the content's digest {digest} is not the listed {listed.digest}; not used")


def verify_frontmatter(skill: Skill, text: str) -> None:
    """``SkillError`` when the ``SKILL.md`` read says something else than the entry's frontmatter.

    The top-level ``key: value`` lines are compared with the entry's string fields (nested YAML is
    not parsed here: a field whose value is not a string in the entry is left to the digest check).
    """
    found = frontmatter_scalars(text)
    if found is None:
        raise SkillError(f"{skill.uri}: the SKILL.md read does not begin with YAML frontmatter")
    for key, value in skill.frontmatter.items():
        if isinstance(value, str) and found.get(key) != value:
            raise SkillError(f"{skill.uri}: the SKILL.md's {key!r} is {found.get(key)!r}, the entry says {value!r}")


def frontmatter_scalars(text: str) -> dict[str, str] | None:
    """The top-level ``key: value`` scalars of a leading ``---`` block (quotes removed); None without one."""
    lines = text.replace("\r\n", "\n").split("\n")
    if not lines or lines[0].strip() != "---" or "---" not in (line.strip() for line in lines[1:]):
        return None
    out: dict[str, str] = {}
    for line in lines[1:]:
        if line.strip() == "---":
            break
        if line[:1].isspace() or ":" not in line or line.lstrip().startswith("#"):
            continue
        key, _, value = line.partition(":")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        out[key.strip()] = value
    return out
