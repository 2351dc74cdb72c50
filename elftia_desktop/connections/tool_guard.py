"""Holds back a trusted server's changed or new tools until the user reviews them.

Every tool listing passes through :meth:`ToolGuard.admit` (the service's tool cache calls it when
it fetches, so ``list_changed`` and the health check's re-list feed the same comparison). The
first listing of a server pins every tool (trust on first listing) and lints it; a later listing
whose tool differs from its pin keeps that tool out of what agents, the loader and the gateway
see, and records what the server said now, so :meth:`review` can show the difference without
starting the server again. :meth:`accept` pins the new definitions and lets them through.
"""

from __future__ import annotations

import asyncio
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types

from elftia_desktop.core.errors import ToolCallError
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.core.text_rules import quoted
from elftia_desktop.core.tool_pin_store import PinStore
from elftia_desktop.core.tool_pins import (
    LintFinding,
    PinCheck,
    compare,
    definition_diff,
    lint_instructions,
    lint_tool,
    listing_blob,
    reordered_only,
    text_digest,
    tool_definition,
    tool_digest,
)

INSTRUCTIONS = "(instructions)"


@dataclass
class ReviewItem:
    """One tool (or the instructions) that waits for review."""

    name: str
    status: str
    """``changed``, ``new`` or ``instructions``."""
    before: dict[str, Any] | None
    """The pinned definition (None for a new tool)."""
    after: dict[str, Any] | None
    """What the server says now."""
    findings: list[LintFinding] = field(default_factory=list)


@dataclass
class ToolReview:
    """What a review shows: the held tools with their diffs and lint findings, and findings of the pinned ones."""

    server_id: str
    items: list[ReviewItem] = field(default_factory=list)
    pinned_findings: list[LintFinding] = field(default_factory=list)
    """Findings in the tools already pinned (shown at first trust)."""
    pinned: bool = False
    """False while the server was never listed (nothing pinned yet)."""
    reordered: list[str] = field(default_factory=list)
    """Tools served although their description changed: it lists the same items in another order."""

    @property
    def held(self) -> list[str]:
        """Names of the tools held back."""
        return [item.name for item in self.items if item.name != INSTRUCTIONS]

    def to_json_dict(self) -> dict[str, Any]:
        """``{serverId, pinned, held, items: [{name, status, before, after, diff, findings}], pinnedFindings,
        reordered}``."""
        return {
            "serverId": self.server_id,
            "pinned": self.pinned,
            "held": self.held,
            "items": [
                {
                    "name": item.name,
                    "status": item.status,
                    "before": item.before,
                    "after": item.after,
                    "diff": definition_diff(item.before, item.after),
                    "findings": [_finding(f) for f in item.findings],
                }
                for item in self.items
            ],
            "pinnedFindings": [_finding(f) for f in self.pinned_findings],
            "reordered": list(self.reordered),
        }


class ToolGuard:
    """The pin check on every listing, and review / accept for the front ends."""

    def __init__(self, store: PinStore, on_accepted: Callable[[str], None] | None = None) -> None:
        self.store = store
        self.on_accepted = on_accepted
        """Called with the server id after an accept (the service drops its tool cache)."""
        self.held: dict[str, frozenset[str]] = {}
        """Server id -> the tools the last listing held back."""
        self._cached: dict[str, dict[str, Any]] = {}
        """Server id -> its pins as last read or written (a re-list that matches them touches no file)."""
        self._last: dict[str, tuple[bytes, frozenset[str]]] = {}
        """Server id -> the last listing (serialised) and the tools it held back."""

    async def admit(
        self, record: McpServerRecord, tools: Sequence[types.Tool], instructions: str | None
    ) -> list[types.Tool]:
        """The tools that may be served; changed and new ones are held back (and recorded for review)."""
        blob = listing_blob(tools, instructions)
        last = self._last.get(record.id)
        if last is not None and last[0] == blob:  # the same listing as last time: the same answer
            held: set[str] | frozenset[str] = last[1]
        else:
            digests = {tool.name: tool_digest(tool) for tool in tools}
            pins = self._cached.get(record.id)
            if pins is not None and self._unchanged(pins, digests, instructions):
                held = frozenset()
            else:
                held = await asyncio.to_thread(self._check, record, tools, digests, instructions)
            self._last[record.id] = (blob, frozenset(held))
        self.held[record.id] = frozenset(held)
        return [tool for tool in tools if tool.name not in held] if held else list(tools)

    @staticmethod
    def _unchanged(pins: dict[str, Any], digests: Mapping[str, str], instructions: str | None) -> bool:
        pinned = pins.get("tools") or {}
        if (pins.get("instructions") or {}).get("digest") != text_digest(instructions) or pins.get("pending"):
            return False
        return all(pinned.get(name, {}).get("digest") == digest for name, digest in digests.items())

    def _check(
        self, record: McpServerRecord, tools: Sequence[types.Tool], digests: Mapping[str, str], instructions: str | None
    ) -> set[str]:
        """Compare with the pins (pinning and linting everything on the first listing); returns the names held."""
        server_id = record.id
        pins = self.store.get(server_id)
        text = {"digest": text_digest(instructions), "text": instructions} if instructions is not None else None
        if pins is None:
            first = {t.name: _pin(t, digests[t.name]) for t in tools}
            pins = {"name": record.name, "tools": first, "instructions": text, "pending": {}}
            others = _other_tool_names(self.store.all(), server_id, None)
            findings = [f for p in first.values() for f in lint_tool(p["definition"], others)]
            pins["flagged"] = sorted({f.tool for f in findings + lint_instructions(instructions)})
            self.store.put(server_id, pins)
            self._cached[server_id] = pins
            return set()
        pinned = {name: pin.get("digest") for name, pin in (pins.get("tools") or {}).items()}
        check = compare(pinned, digests, (pins.get("instructions") or {}).get("digest"), text_digest(instructions))
        if not check.instructions_changed:
            _judge_reordered(check, pins, {t.name: t for t in tools})
        pending = {t.name: _pin(t, digests[t.name]) for t in tools if t.name in check.held}
        # a tool held by another process's listing (added at run time) stays pending until reviewed
        pending |= {n: p for n, p in (pins.get("pending") or {}).items() if n not in digests}
        pending_text = text if check.instructions_changed else None
        now = (pending, pending_text, sorted(check.reordered))
        if now != (pins.get("pending"), pins.get("pendingInstructions"), pins.get("reordered", [])):
            pins["pending"], pins["pendingInstructions"], pins["reordered"] = now
            self.store.put(server_id, pins)
        self._cached[server_id] = pins
        return check.held

    def outside_accepts(self) -> list[str]:
        """Servers whose held tools another process (``elftia-mcp review``) accepted (blocking, cheap)."""
        waiting = [sid for sid, names in self.held.items() if names]
        if not waiting:
            return []
        released = []
        for server_id in waiting:
            pins = self.store.get(server_id) or {}
            pinned = pins.get("tools") or {}
            if not pins.get("pending") and all(name in pinned for name in self.held[server_id]):
                released.append(server_id)
        return released

    def release(self, server_ids: Sequence[str]) -> None:
        """Let the tools of these servers through again (on the service loop: it drops their tool caches)."""
        for server_id in server_ids:
            self.held.pop(server_id, None)
            self._cached.pop(server_id, None)
            self._last.pop(server_id, None)
            if self.on_accepted is not None:
                self.on_accepted(server_id)

    def forget(self, server_id: str) -> None:
        """Drop a removed server's pins (blocking: the pins file)."""
        self.store.put(server_id, None)
        for cache in (self.held, self._cached, self._last):
            cache.pop(server_id, None)

    def check_callable(self, record: McpServerRecord, tool_name: str) -> None:
        """Refuse a call of a tool that is held back, saying how to review it."""
        if tool_name in self.held.get(record.id, frozenset()):
            raise ToolCallError(
                f"The tool {quoted(tool_name)} of {record.name} changed since you trusted it, so it is held back until "
                f"you review it (in the app, or: elftia-mcp review {shlex.quote(record.name)})."
            )

    def review(self, server_id: str, names: Mapping[str, str]) -> ToolReview:
        """What waits for review on one server (blocking: reads the pins file); ``names``: id -> server name."""
        pins = self.store.get(server_id)
        review = ToolReview(server_id, pinned=pins is not None)
        if pins is None:
            return review
        others = _other_tool_names(self.store.all(), server_id, names)
        pinned = pins.get("tools") or {}
        review.reordered = list(pins.get("reordered") or [])
        for name, pin in sorted((pins.get("pending") or {}).items()):
            before = (pinned.get(name) or {}).get("definition")
            after = pin.get("definition") or {}
            status = "new" if before is None else "changed"
            review.items.append(ReviewItem(name, status, before, after, lint_tool(after, others)))
        pending_text = pins.get("pendingInstructions")
        if pending_text is not None:
            before_text = (pins.get("instructions") or {}).get("text")
            findings = lint_instructions(pending_text.get("text"))
            after = {"instructions": pending_text.get("text")}
            review.items.append(
                ReviewItem(INSTRUCTIONS, "instructions", {"instructions": before_text}, after, findings)
            )
        for pin in pinned.values():
            review.pinned_findings += lint_tool(pin.get("definition") or {}, others)
        review.pinned_findings += lint_instructions((pins.get("instructions") or {}).get("text"))
        return review

    def accept(self, server_id: str, names: Sequence[str] | None = None) -> list[str]:
        """:meth:`store_accept`, then :meth:`release` (for callers without a service loop: the CLI)."""
        accepted = self.store_accept(server_id, names)
        if accepted:
            self.release([server_id])
        return accepted

    def store_accept(self, server_id: str, names: Sequence[str] | None = None) -> list[str]:
        """Pin what the server says now for ``names`` (None: every held tool); returns the names accepted.

        Accepting anything also accepts changed instructions (the review showed them). Blocking (the
        pins file); call :meth:`release` on the service loop afterwards.
        """
        pins = self.store.get(server_id)
        pending: dict[str, Any] = dict((pins or {}).get("pending") or {})
        if pins is None:
            return []
        if not pending and pins.get("pendingInstructions") is None:
            if pins.get("flagged") and names is None:  # the findings of the first trust were read
                pins["flagged"] = []
                self.store.put(server_id, pins)
            return []
        chosen = list(pending) if names is None else [n for n in names if n in pending]
        unknown = [] if names is None else [n for n in names if n not in pending]
        if unknown:
            held = ", ".join(sorted(pending)) or "none"
            raise ToolCallError(f"Not held back: {', '.join(unknown)} (held back: {held})")
        for name in chosen:
            pins.setdefault("tools", {})[name] = pending.pop(name)
        if pins.get("pendingInstructions") is not None:
            pins["instructions"], pins["pendingInstructions"] = pins["pendingInstructions"], None
            chosen.append(INSTRUCTIONS)
        pins["pending"], pins["flagged"] = pending, []
        self.store.put(server_id, pins)
        return chosen


def _judge_reordered(check: PinCheck, pins: Mapping[str, Any], tools: Mapping[str, types.Tool]) -> None:
    """Move the changed tools whose descriptions only list the same items in another order to ``reordered``."""
    pinned = pins.get("tools") or {}
    for name in list(check.changed):
        before = (pinned.get(name) or {}).get("definition")
        if reordered_only(before, tool_definition(tools[name])):
            check.changed.remove(name)
            check.reordered.append(name)


def _finding(finding: LintFinding) -> dict[str, str]:
    return {"tool": finding.tool, "rule": finding.rule, "detail": finding.detail}


def held_tools(store: PinStore) -> dict[str, dict[str, Any]]:
    """Server id -> ``{held, flagged, findings}``: the tools its last listing held back, those the lint
    flagged when it was first trusted (not yet looked at) and what it found in them (``{tool, rule,
    detail}``), as the pins file records them (blocking)."""
    out: dict[str, dict[str, Any]] = {}
    every = store.all()
    for server_id, pins in every.items():
        if not isinstance(pins, dict):
            continue
        held = sorted(pins.get("pending") or {})
        if pins.get("pendingInstructions") is not None:
            held.append(INSTRUCTIONS)
        flagged = list(pins.get("flagged") or [])
        if held or flagged:
            out[server_id] = {"held": held, "flagged": flagged, "findings": _flagged_findings(every, server_id)}
    return out


def _flagged_findings(every: Mapping[str, Any], server_id: str) -> list[dict[str, str]]:
    """The lint's findings in the flagged pinned tools (and instructions) of one server, as JSON."""
    pins = every[server_id]
    others = _other_tool_names(every, server_id, None)
    tools = pins.get("tools") or {}
    found = [
        f
        for name in pins.get("flagged") or []
        for f in lint_tool((tools.get(name) or {}).get("definition") or {}, others)
    ]
    if INSTRUCTIONS in (pins.get("flagged") or []):
        found += lint_instructions((pins.get("instructions") or {}).get("text"))
    return [_finding(f) for f in found]


def _pin(tool: types.Tool, digest: str) -> dict[str, Any]:
    return {"digest": digest, "definition": tool_definition(tool)}


def _other_tool_names(all_pins: Mapping[str, Any], server_id: str, names: Mapping[str, str] | None) -> dict[str, str]:
    """Tool name -> the other server that has it, for the shadowing lint (``names``: the configured ones)."""
    out: dict[str, str] = {}
    for other, pins in all_pins.items():
        if other == server_id or not isinstance(pins, dict) or (names is not None and other not in names):
            continue
        owner = names[other] if names is not None else str(pins.get("name") or other)
        for tool in pins.get("tools") or {}:
            out.setdefault(tool, owner)
    return out
