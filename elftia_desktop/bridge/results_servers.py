"""Typed results of the server channels the Servers page reads (issue 36: no JSON dicts into ``ui/``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class HeldTools:
    """One server's "Changed tools" banner: tools held back since they changed, tools the lint flagged
    when the server was first trusted (not yet looked at), and what it found in those."""

    held: tuple[str, ...] = ()
    flagged: tuple[str, ...] = ()
    findings: tuple[Mapping[str, str], ...] = ()
    """The lint's findings, ``{tool, rule, detail}`` each (as the pins file records them)."""
