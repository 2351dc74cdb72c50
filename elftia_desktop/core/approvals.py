"""Which tools run without asking first: the user's switches, else the tool's ``readOnlyHint``.

The state lives on each server record in two lists:

- ``disabledAutoApproveTools`` (the seed's key, its meaning kept): tools that ask before each call;
- ``autoApprovedTools``: tools the user let run without asking.

A tool in neither list was never decided: on a record written by this version (the key is present,
possibly empty) it runs without asking when its annotations say ``readOnlyHint: true`` and asks
otherwise. A record from an older file has no ``autoApprovedTools`` key: it keeps what it had, every
tool not in ``disabledAutoApproveTools`` runs without asking. Both switches (Discover,
``elftia-mcp tools NAME --approve/--ask``) write the same lists through
:meth:`~elftia_desktop.core.catalog.ServerCatalog.set_tool_flag`.

A tool that is not auto-approved is put to a person first; :class:`Answer` holds the three
answers, and :func:`approval_schema` is the one-choice form an app or the CLI is sent for it.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the records' models (pydantic) would be most of a warm ``elftia-mcp call``'s start
    from elftia_desktop.core.models import McpServerRecord

ANSWER_FIELD = "answer"
"""The approval form's one field."""


class Answer(enum.Enum):
    """A person's answer to an approval question (the value is its label)."""

    ONCE = "Allow once"
    ALWAYS = "Always allow this tool"
    DENY = "Deny"


def approval_schema() -> dict[str, Any]:
    """The approval question as an elicitation form: one required choice among the three answers."""
    return {
        "type": "object",
        "properties": {ANSWER_FIELD: {"type": "string", "title": "Answer", "enum": [a.value for a in Answer]}},
        "required": [ANSWER_FIELD],
    }


def answer_of(action: str, content: dict[str, Any] | None) -> Answer:
    """The answer in a filled approval form; a declined or cancelled form, or anything else, denies."""
    chosen = (content or {}).get(ANSWER_FIELD) if action == "accept" else None
    return next((answer for answer in Answer if answer.value == chosen), Answer.DENY)


def decided(record: McpServerRecord, tool_name: str) -> bool | None:
    """The user's choice for ``tool_name`` (True: run without asking, False: ask); None when never decided."""
    if tool_name in record.disabled_auto_approve_tools:
        return False
    if record.auto_approved_tools is None or tool_name in record.auto_approved_tools:
        return True
    return None


def auto_approved(record: McpServerRecord, tool_name: str, read_only_hint: bool | None) -> bool:
    """Whether ``tool_name`` runs without asking: the user's choice, else its ``readOnlyHint``."""
    choice = decided(record, tool_name)
    return choice if choice is not None else read_only_hint is True


def with_choice(record: McpServerRecord, tool_name: str, approve: bool) -> dict[str, list[str] | None]:
    """The two lists after the user chose ``approve`` for ``tool_name`` (an older record keeps its shape)."""
    asking = [name for name in record.disabled_auto_approve_tools if name != tool_name]
    approved = record.auto_approved_tools
    if approved is not None:
        approved = [name for name in approved if name != tool_name] + ([tool_name] if approve else [])
    return {
        "disabled_auto_approve_tools": asking if approve else [*asking, tool_name],
        "auto_approved_tools": approved,
    }
