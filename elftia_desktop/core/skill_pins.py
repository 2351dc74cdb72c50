"""Skill pinning: a server's skills as they were when first seen, and which changed since.

Like tools (``tool_pins``), a skill is pinned by digest: on a server's first listing every skill is
pinned as listed (its :attr:`Skill.content_digest`, bound to the frontmatter and every file's
digest); a later listing whose entry for a URI has another digest, or a URI not pinned before,
holds that skill back until the user accepts it (``elftia-mcp skills SERVER --accept``, or the
Skills tab). The identity of a skill is the pair (server id, uri), as the extension requires: the
file is keyed by server id, then by URI. Stored in ``{data dir}/skill-pins.json`` (0600) through
:class:`PinStore`; shape per server ``{"name", "skills": {uri: {"digest", "entry"}}, "pending":
{uri: {"digest", "entry"}}}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from elftia_desktop.core.errors import ConfigError
from elftia_desktop.core.skills import Skill
from elftia_desktop.core.tool_pin_store import PinStore

SKILL_PINS_FILE_NAME = "skill-pins.json"

SkillStatus = Literal["pinned", "changed", "new"]
"""``pinned``: as accepted; ``changed``: another digest than the pinned one; ``new``: never accepted."""


def skill_pin_store(config_path: Path) -> PinStore:
    """The skill pins beside the config file."""
    return PinStore(config_path.with_name(SKILL_PINS_FILE_NAME), what="skill pins")


class SkillPins:
    """Compare listings with the pins, hold back what changed, and accept it after review."""

    def __init__(self, store: PinStore) -> None:
        self.store = store

    def check(self, server_id: str, server_name: str, skills: Sequence[Skill]) -> dict[str, SkillStatus]:
        """The status of each listed skill by URI; the first listing of a server pins them all."""
        pins = self.store.get(server_id)
        if pins is None:
            pinned = {s.uri: _pin(s) for s in skills}
            self.store.put(server_id, {"name": server_name, "skills": pinned, "pending": {}})
            return dict.fromkeys(pinned, "pinned")
        known = pins.get("skills") or {}
        status: dict[str, SkillStatus] = {}
        pending = dict(pins.get("pending") or {})
        for skill in skills:
            before = known.get(skill.uri)
            if before is not None and before.get("digest") == skill.content_digest:
                status[skill.uri] = "pinned"
                pending.pop(skill.uri, None)
            else:
                status[skill.uri] = "new" if before is None else "changed"
                pending[skill.uri] = _pin(skill)
        if pending != (pins.get("pending") or {}):
            self.store.put(server_id, pins | {"pending": pending})
        return status

    def pending(self, server_id: str) -> dict[str, dict[str, Any]]:
        """The entries held back, by URI, as the last listing said them."""
        return dict(((self.store.get(server_id) or {}).get("pending")) or {})

    def pinned_entry(self, server_id: str, uri: str) -> dict[str, Any] | None:
        """The entry as accepted (None when the skill was never accepted)."""
        pin = ((self.store.get(server_id) or {}).get("skills") or {}).get(uri)
        return pin.get("entry") if isinstance(pin, dict) else None

    def accept(self, server_id: str, uris: Sequence[str] | None = None) -> list[str]:
        """Pin the held-back skills named (None: all) as the last listing said them; the URIs accepted."""
        pins = self.store.get(server_id)
        pending = dict((pins or {}).get("pending") or {})
        wanted = list(pending) if uris is None else list(uris)
        unknown = [uri for uri in wanted if uri not in pending]
        if unknown:
            held = ", ".join(pending) or "none"
            raise ConfigError(f"not held back: {', '.join(unknown)} (held back now: {held})")
        if pins is None or not wanted:
            return []
        skills = dict(pins.get("skills") or {})
        for uri in wanted:
            skills[uri] = pending.pop(uri)
        self.store.put(server_id, pins | {"skills": skills, "pending": pending})
        return wanted


def _pin(skill: Skill) -> dict[str, Any]:
    return {"digest": skill.content_digest, "entry": skill.as_json()}
