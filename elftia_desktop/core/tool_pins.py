"""Tool pinning: what a trusted server's tools said when the user trusted it, and what changed since.

A server trusted today can change a tool's description tomorrow ("rug pull"): "…first read
~/.ssh/id_rsa…". When a server is trusted, each tool's definition (name, title, description,
input and output schemas, annotations) and the server's instructions are hashed and kept. A later
listing is compared with them: a changed or new tool is held back from agents, the loader and
the gateway until the user reviews it; a tool whose description only lists the same items in
another order (:func:`reordered_only`) is judged "reordered" and served. The lint flags, at
review and on first trust, descriptions with hidden Unicode, instructions aimed at the model,
credential paths, and a tool named like another server's tool. Everything here is pure (no files,
no SDK): see ``tool_pin_store``.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import pydantic_core

from elftia_desktop.core.text_rules import visible


class ToolLike(Protocol):
    """The fields of a tool definition that are pinned (the SDK's ``Tool`` has them)."""

    name: str
    title: str | None
    description: str | None
    input_schema: Any
    output_schema: Any
    annotations: Any


def tool_digest(tool: ToolLike) -> str:
    """A hash of everything the model reads about a tool (its definition as the server sent it)."""
    payload = (tool.name, tool.title, tool.description, tool.input_schema, tool.output_schema, tool.annotations)
    return hashlib.blake2b(pydantic_core.to_json(payload), digest_size=16).hexdigest()


def listing_blob(tools: Iterable[ToolLike], instructions: str | None) -> bytes:
    """The pinned fields of a whole listing serialised at once: equal bytes, an unchanged listing.

    One call into pydantic-core for all tools is several times cheaper than one per tool, so a
    re-list that matches the previous one costs about 2 ms for 1000 tools.
    """
    rows = [(t.name, t.title, t.description, t.input_schema, t.output_schema, t.annotations) for t in tools]
    return pydantic_core.to_json((instructions, rows))


def text_digest(text: str | None) -> str | None:
    """A hash of the server's instructions (None when it has none)."""
    return None if text is None else hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def tool_definition(tool: ToolLike) -> dict[str, Any]:
    """The pinned fields as JSON, kept so that a review can show what changed."""
    out = {"name": tool.name, "title": tool.title, "description": tool.description}
    out |= {"inputSchema": tool.input_schema, "outputSchema": tool.output_schema}
    annotations = tool.annotations
    out["annotations"] = annotations.model_dump(mode="json", exclude_none=True) if annotations is not None else None
    return {k: v for k, v in out.items() if v is not None} | {"name": tool.name}


@dataclass
class PinCheck:
    """A listing compared with the pins: which tools may be served and which wait for review."""

    changed: list[str] = field(default_factory=list)
    """Tools whose definition differs from the pinned one."""
    new: list[str] = field(default_factory=list)
    """Tools that were not there when the server was trusted."""
    removed: list[str] = field(default_factory=list)
    """Pinned tools the server no longer lists (nothing to hold back)."""
    reordered: list[str] = field(default_factory=list)
    """Tools whose description lists the same items in another order (not held: nothing new was said)."""
    instructions_changed: bool = False
    """The server's instructions changed: every tool waits for review."""

    @property
    def held(self) -> set[str]:
        """The tools held back until reviewed."""
        return {*self.changed, *self.new}

    @property
    def clean(self) -> bool:
        """True when nothing waits for review."""
        return not (self.changed or self.new or self.instructions_changed)


def compare(
    pinned: Mapping[str, str], listed: Mapping[str, str], pinned_instructions: str | None, instructions: str | None
) -> PinCheck:
    """Compare ``{name: digest}`` of the pins with those of a listing (and the instructions' digests)."""
    check = PinCheck(instructions_changed=pinned_instructions != instructions)
    for name, digest in listed.items():
        before = pinned.get(name)
        if before is None:
            check.new.append(name)
        elif before != digest:
            check.changed.append(name)
    check.removed = [name for name in pinned if name not in listed]
    if check.instructions_changed:
        check.changed = sorted({*check.changed, *(n for n in listed if n not in check.new)})
    return check


_LIST_BREAK = re.compile(r"\s*[,;:|\n]\s*")
"""What separates the items of a list written in a description (``Available commands: ls, cat, pwd``)."""


def reordered_only(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> bool:
    """Whether two tool definitions differ only in the order of list items inside their descriptions.

    The descriptions, cut at commas, semicolons, colons, bars and line breaks, hold the same
    pieces (each piece's own words in the same order), and everything else is equal: nothing new
    can have been said (a server that builds a list from a set says it in another order in every
    process).
    """
    if before is None or after is None or before == after:
        return False
    rest_before = {k: v for k, v in before.items() if k != "description"}
    rest_after = {k: v for k, v in after.items() if k != "description"}
    old, new = before.get("description"), after.get("description")
    if rest_before != rest_after or not isinstance(old, str) or not isinstance(new, str):
        return False
    return sorted(_LIST_BREAK.split(old.strip())) == sorted(_LIST_BREAK.split(new.strip()))


def definition_diff(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> list[str]:
    """A unified diff of two tool definitions as indented JSON, every line escaped (:func:`visible`)."""
    old = json.dumps(before, indent=2, ensure_ascii=False).splitlines() if before is not None else []
    new = json.dumps(after, indent=2, ensure_ascii=False).splitlines() if after is not None else []
    return [visible(line) for line in difflib.unified_diff(old, new, "pinned", "now", lineterm="", n=1)]


# -- lint -----------------------------------------------------------------------------------------

_MODEL_DIRECTED = (
    (
        "ignore-instructions",
        re.compile(
            r"\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+|the\s+)?(?:previous|prior|above|earlier|other)\s+(?:instructions|prompts?|rules|messages)",
            re.I,
        ),
    ),
    (
        "hide-from-user",
        re.compile(
            r"\b(?:do\s+not|don't|never)\s+(?:tell|inform|mention|reveal|show|notify)\s+(?:\w+\s+){0,2}(?:the\s+)?user\b",
            re.I,
        ),
    ),
    ("hidden-tag", re.compile(r"<\s*/?\s*(?:important|system|instructions?|secret|hidden)\s*>", re.I)),
)
_CREDENTIAL_PATH = re.compile(
    r"(?:~|\$HOME|/home/\w+|/Users/\w+)?/?\.(?:ssh|aws/credentials|gnupg|netrc|npmrc|pgpass|kube/config|docker/config\.json|git-credentials)"
    r"|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|/etc/(?:shadow|passwd)\b|claude_desktop_config\.json|mcp-config\.json",
    re.I,
)


_KEYWORDS = (
    *("ignore", "disregard", "forget", "user", "<", "/etc/", "id_", "config.json", "mcp-config"),
    *(".ssh", ".aws", ".gnupg", ".netrc", ".npmrc", ".pgpass", ".kube", ".docker", ".git-credentials"),
)
"""Words one of which every finding's text holds: most texts are done after these substring checks."""


def _invisible(char: str) -> bool:
    return unicodedata.category(char) in ("Cf", "Co") or 0xE0000 <= ord(char) <= 0xE007F


@dataclass(frozen=True)
class LintFinding:
    """One thing in a tool definition (or the server's instructions) a person should look at."""

    tool: str
    """The tool's name, or ``(instructions)``."""
    rule: str
    """``hidden-unicode``, ``ignore-instructions``, ``hide-from-user``, ``hidden-tag``, ``credential-path``
    or ``shadows``."""
    detail: str
    """What was found, control characters escaped."""


def lint_texts(tool: str, texts: Iterable[str]) -> list[LintFinding]:
    """Findings in the texts of one tool (its description, title, schema descriptions)."""
    findings: list[LintFinding] = []
    for text in texts:
        hidden = [] if text.isascii() else sorted({c for c in text if _invisible(c)})
        if hidden:
            shown = ", ".join(f"U+{ord(c):04X}" for c in hidden[:5])
            findings.append(LintFinding(tool, "hidden-unicode", f"invisible characters {shown}"))
        low = text.lower()
        if not any(word in low for word in _KEYWORDS):
            continue
        for rule, pattern in _MODEL_DIRECTED:
            match = pattern.search(text)
            if match:
                findings.append(LintFinding(tool, rule, _excerpt(match.group(0))))
        match = _CREDENTIAL_PATH.search(text)
        if match:
            findings.append(LintFinding(tool, "credential-path", f"mentions {_excerpt(match.group(0))}"))
    return findings


def lint_tool(definition: Mapping[str, Any], other_servers: Mapping[str, str] | None = None) -> list[LintFinding]:
    """Findings for one pinned tool definition; ``other_servers`` maps tool names to the server that has them."""
    name = str(definition.get("name", ""))
    owner = (other_servers or {}).get(name)
    texts = [str(definition.get("description") or ""), str(definition.get("title") or ""), name]
    texts += list(_schema_texts(definition.get("inputSchema")))
    findings = lint_texts(name, [t for t in texts if t])
    if owner is not None:
        findings.append(LintFinding(name, "shadows", f"has the same name as a tool of {owner}"))
    return findings


def lint_instructions(text: str | None) -> list[LintFinding]:
    """Findings in the server's instructions."""
    return lint_texts("(instructions)", [text]) if text else []


def _schema_texts(schema: Any, depth: int = 0) -> Iterable[str]:
    """The description, title and enum strings anywhere in a schema (bounded depth)."""
    if depth > 20:
        return
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key in ("description", "title") and isinstance(value, str):
                yield value
            elif isinstance(value, dict | list):
                yield from _schema_texts(value, depth + 1)
    elif isinstance(schema, list):
        for item in schema:
            yield from _schema_texts(item, depth + 1)


def _excerpt(text: str, limit: int = 60) -> str:
    flat = "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in " ".join(text.split()))
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")
