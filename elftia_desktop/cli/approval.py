"""``elftia-mcp call``'s approval question for a tool that is not auto-approved.

On a terminal the command asks (allow once, always allow, deny); ``--yes`` allows the call without
asking; off a terminal without ``--yes`` the call is refused and the command exits with
:data:`EXIT_NOT_APPROVED`. The same answers serve the in-process call (as the check's asker) and
the call through the pool host (which sends the question as an approval form, see
:func:`elftia_desktop.core.approvals.approval_schema`). Nothing here loads the SDK.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from elftia_desktop.cli.output import suggest
from elftia_desktop.core.approvals import ANSWER_FIELD, Answer, approval_schema
from elftia_desktop.core.text_rules import quoted

if TYPE_CHECKING:
    from elftia_desktop.engine.approval import ApprovalRequest

EXIT_NOT_APPROVED = 5
"""``call``'s exit code when the tool did not run for want of approval (denied, or nobody to ask)."""
PROMPT = "[o] allow once  [a] always allow this tool  [d] deny: "
ElicitAnswer = Callable[[str, str, dict[str, Any]], tuple[str, dict[str, Any] | None]]


class TerminalApproval:
    """Answers approval questions for one ``call``; remembers whether it refused one."""

    def __init__(self, yes: bool) -> None:
        """``yes``: allow without asking (``--yes``)."""
        self.yes = yes
        self.unasked = False
        """True when the question came off a terminal without ``--yes`` (the call was refused)."""
        self.denied = False
        """True when the person on the terminal denied the call."""

    def answer(self, question: str) -> Answer:
        """The answer to ``question``: ``--yes``, the terminal's, or a refusal off a terminal."""
        if self.yes:
            return Answer.ONCE
        if not sys.stdin.isatty():
            self.unasked = True
            return Answer.DENY
        print(question, file=sys.stderr)
        print(PROMPT, end="", file=sys.stderr, flush=True)
        typed = sys.stdin.readline().strip().lower()
        chosen = {"o": Answer.ONCE, "once": Answer.ONCE, "a": Answer.ALWAYS, "always": Answer.ALWAYS}.get(typed)
        self.denied = chosen is None
        return chosen or Answer.DENY

    async def ask(self, request: ApprovalRequest) -> Answer | None:
        """The in-process check's asker (the terminal is read in a worker thread)."""
        import asyncio

        if not self.yes and not sys.stdin.isatty():
            self.unasked = True
            return None
        return await asyncio.to_thread(self.answer, request.question())

    def elicitation(self, others: ElicitAnswer) -> ElicitAnswer:
        """The host's questions answered: its approval form here, any other form by ``others``."""

        def answer(server_id: str, message: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
            """One question of the host."""
            if schema != approval_schema():
                return others(server_id, message, schema)
            return "accept", {ANSWER_FIELD: self.answer(message).value}

        return answer

    def refused(self, server: str, tool: str) -> str | None:
        """Why the call did not run for want of approval; None when it was not refused."""
        if self.unasked:
            return (
                f"not a terminal: pass --yes to allow {quoted(tool)} of {server}, or approve it with "
                f"`{suggest('tools', server, '--approve', tool)}`"
            )
        if self.denied:
            return f"the call of {quoted(tool)} of {server} was denied"
        return None
