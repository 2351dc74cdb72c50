"""Plain words for the tool lint's findings, so a banner says what was found, not only where."""

from __future__ import annotations

from collections.abc import Sequence

from elftia_desktop.core.tool_pins import LintFinding

RULE_WORDS = {
    "hidden-unicode": "has invisible characters in its description",
    "ignore-instructions": "'s description tells the model to ignore its instructions",
    "hide-from-user": "'s description tells the model to keep something from you",
    "hidden-tag": "'s description hides a tag aimed at the model",
    "credential-path": "'s description mentions a credentials file",
}
"""How each lint rule reads after a tool's name (``shadows`` uses the finding's own detail)."""


def finding_phrase(finding: LintFinding) -> str:
    """One finding as a sentence part: "search has the same name as a tool of GitHub"."""
    tool, rule = finding.tool, finding.rule
    if rule == "shadows":
        return f"{tool} {finding.detail}"
    words = RULE_WORDS.get(rule, f": {rule}")
    return f"{tool}{words}" if words.startswith("'") or words.startswith(":") else f"{tool} {words}"


def findings_summary(findings: Sequence[LintFinding]) -> str:
    """The first finding in words, then how many more ("" when none)."""
    if not findings:
        return ""
    more = len(findings) - 1
    return finding_phrase(findings[0]) + (f" (and {more} more)" if more else "")


def only_shadowing(findings: Sequence[LintFinding]) -> bool:
    """Whether every finding is a name clash with another server's tool (no description to check)."""
    return bool(findings) and all(f.rule == "shadows" for f in findings)
