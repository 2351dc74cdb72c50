"""The one approval check before a pool server's tool runs (gateway, CLI, Try dialog, engine).

:func:`check_approval` reads the server's record as it is now (the config file may have been
changed by another process) and the tool's annotations. A tool that is auto-approved (see
:mod:`elftia_desktop.core.approvals`) runs; any other is put to an :data:`Asker`: the front end's
way of asking a person (an elicitation to the calling app, a dialog, a terminal prompt). Its
answers: allow once, always allow (the tool becomes auto-approved in the config), deny. When
nobody can be asked, the call is refused with a text that says how to approve the tool.
"""

from __future__ import annotations

import asyncio
import json
import logging
import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import mcp_types as types

from elftia_desktop.core.approvals import Answer, decided
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.errors import ElftiaError
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.core.text_rules import quoted

log = logging.getLogger(__name__)

__all__ = ["Answer", "ApprovalRequest", "Asker", "Refusal", "approval_request", "check_approval"]


@dataclass(frozen=True)
class ApprovalRequest:
    """What a person is asked about: which tool of which server, with which arguments and annotations."""

    server_id: str
    server_name: str
    tool_name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    annotations: types.ToolAnnotations | None = None

    def hints(self) -> str:
        """What the server says the tool does (its annotations), in plain words."""
        notes = self.annotations
        if notes is None:
            return ""
        words = [
            _said(notes.read_only_hint, "only reads", "may change things"),
            _said(notes.destructive_hint, "may delete or overwrite", "deletes nothing"),
            _said(notes.open_world_hint, "reaches outside services", "stays within its own data"),
        ]
        return ", ".join(w for w in words if w)

    def described(self) -> str:
        """:meth:`hints` as a sentence, or that the server says nothing of it."""
        hints = self.hints()
        return f"The server says it {hints}." if hints else "The server does not say what the tool does."

    def arguments_text(self) -> str:
        """The arguments as indented JSON."""
        return json.dumps(self.arguments, indent=2, ensure_ascii=False, default=str)

    def question(self) -> str:
        """The question as one text: server, tool, annotations and arguments."""
        return (
            f"Allow the tool {quoted(self.tool_name)} of the server {quoted(self.server_name)} to run?\n"
            f"{self.described()}\nArguments: {self.arguments_text()}"
        )


def _said(hint: bool | None, yes: str, no: str) -> str:
    """One annotation in words; empty when the server did not say."""
    return "" if hint is None else yes if hint else no


Asker = Callable[[ApprovalRequest], Awaitable[Answer | None]]
"""Asks a person; None when nobody could be asked (then the call is refused)."""


@dataclass(frozen=True)
class Refusal:
    """Why a call was not run."""

    text: str
    denied: bool
    """True: a person said no; False: nobody could be asked."""


class ApprovalSource(Protocol):
    """The part of ``McpService`` the check uses."""

    @property
    def catalog(self) -> ServerCatalog:
        """The config (where "always allow" is saved)."""
        ...

    async def current_records(self) -> list[McpServerRecord]:
        """The records as the config file holds them now."""
        ...

    async def list_tool_defs(self, server_id: str) -> list[types.Tool]:
        """The server's enabled tools with their annotations."""
        ...

    def notify_servers_changed(self) -> None:
        """Tell subscribers the config changed."""
        ...


def how_to_approve(server_name: str, tool_name: str) -> str:
    """The two ways to auto-approve a tool, for a refusal text."""
    return (
        f"run elftia-mcp tools {shlex.quote(server_name)} --approve {shlex.quote(tool_name)}, "
        "or switch on its Auto-approve in the window's Discover dialog"
    )


async def approval_request(
    source: ApprovalSource, server_id: str, tool_name: str, arguments: dict[str, Any]
) -> ApprovalRequest | None:
    """The question for this call when it needs one; None when the tool may run without asking.

    A server or tool that is not there (or cannot be listed) needs no question: the call itself
    reports what is wrong.
    """
    record = next((r for r in await source.current_records() if r.id == server_id), None)
    if record is None:
        return None
    choice = decided(record, tool_name)
    if choice is True:
        return None
    try:
        tool = next((t for t in await source.list_tool_defs(server_id) if t.name == tool_name), None)
    except ElftiaError as exc:
        log.info("%s: tools not listed for the approval check: %s", record.name, exc)
        return None
    if tool is None:
        return None
    annotations = tool.annotations
    if choice is None and annotations is not None and annotations.read_only_hint is True:
        return None
    return ApprovalRequest(server_id, record.name, tool_name, dict(arguments), annotations)


async def check_approval(
    source: ApprovalSource, server_id: str, tool_name: str, arguments: dict[str, Any], ask: Asker | None
) -> Refusal | None:
    """None when the call may run (auto-approved, or a person allowed it); else why not."""
    request = await approval_request(source, server_id, tool_name, arguments)
    if request is None:
        return None
    answer = await ask(request) if ask is not None else None
    if answer is None:
        text = f"{quoted(tool_name)} of {request.server_name} needs approval and nobody could be asked: "
        return Refusal(text + how_to_approve(request.server_name, tool_name) + ".", denied=False)
    if answer is Answer.DENY:
        return Refusal(f"The user denied the call of {quoted(tool_name)} of {request.server_name}.", denied=True)
    if answer is Answer.ALWAYS:
        await remember_always(source, server_id, tool_name)
    return None


async def remember_always(source: ApprovalSource, server_id: str, tool_name: str) -> None:
    """ "Always allow": the tool becomes auto-approved in the config."""
    await asyncio.to_thread(source.catalog.set_tool_flag, server_id, tool_name, "autoApprove", True)
    source.notify_servers_changed()
