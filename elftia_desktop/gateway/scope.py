"""Which servers and tools the gateway serves: an agent's (its MCP mode, servers and tool selection),
or, without an agent, every active server (an agent in ``auto`` mode).

Untrusted servers are left out: they are never started by the gateway (the user confirms them in
the app or with ``elftia-mcp trust``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from elftia_desktop.core.models import Agent, McpMode, McpServerRecord
from elftia_desktop.core.trust import needs_confirmation


@dataclass(frozen=True)
class Scope:
    """What one gateway serves."""

    agent: Agent | None = None
    """None: every active server, every enabled tool."""

    @property
    def label(self) -> str:
        """For messages: the agent's name, or ``all active servers``."""
        return f"agent {self.agent.name}" if self.agent is not None else "all active servers"

    def servers(self, records: list[McpServerRecord]) -> list[McpServerRecord]:
        """The records in scope, in file order (active and trusted only)."""
        usable = [r for r in records if r.is_active and not needs_confirmation(r)]
        agent = self.agent
        if agent is None or agent.mcp_mode is McpMode.AUTO:
            return usable
        if agent.mcp_mode is McpMode.DISABLED:
            return []
        selected = set(agent.selected_servers)
        return [r for r in usable if r.id in selected]

    def untrusted(self, records: list[McpServerRecord]) -> list[McpServerRecord]:
        """Active servers the scope would serve but that are not trusted yet (reported, never started)."""
        agent = self.agent
        selected = None if agent is None or agent.mcp_mode is McpMode.AUTO else set(agent.selected_servers)
        return [r for r in records if r.is_active and needs_confirmation(r) and (selected is None or r.id in selected)]

    def allows_tool(self, record: McpServerRecord, tool_name: str) -> bool:
        """Whether the agent's own tool selection (when it has one) lets this tool through."""
        return self.agent is None or self.agent.allows_tool(record.id, tool_name)

    def allows_skill(self, record: McpServerRecord, skill_uri: str) -> bool:
        """Whether the agent's own skill selection (when it has one) lets this skill through."""
        return self.agent is None or self.agent.allows_skill(record.id, skill_uri)

    def signature(self, records: list[McpServerRecord]) -> str:
        """A digest of everything in the config that changes what is served (to spot real changes)."""
        parts: list[Any] = [self.agent.to_json_dict() if self.agent is not None else None]
        for record in self.servers(records):
            parts.append(
                [record.id, record.name, record.type.value, record.config.to_json_dict(), record.disabled_tools]
            )
        parts.append([r.id for r in self.untrusted(records)])
        return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def _stamp(path: Path | None) -> tuple[int, int] | None:
    try:
        st = os.stat(path) if path is not None else None
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size) if st is not None else None


class ScopeSource:
    """The current scope: every active server, or an agent re-read whenever its store's file changes."""

    def __init__(self, load_agent: Callable[[], Agent] | None = None, path: Path | None = None) -> None:
        """``load_agent`` reads the agent (blocking: it runs in a worker thread); ``path`` is its file."""
        self._load = load_agent
        self._path = path
        self._stamp: tuple[int, int] | None = _stamp(path)
        self._scope = Scope(load_agent() if load_agent is not None else None)

    def current(self) -> Scope:
        """The scope as last read (sync)."""
        return self._scope

    async def refresh(self) -> Scope:
        """The scope, re-read when the agents file changed since the last look."""
        if self._load is None:
            return self._scope
        stamp = _stamp(self._path)
        if stamp != self._stamp:
            self._scope = Scope(await asyncio.to_thread(self._load))
            self._stamp = stamp
        return self._scope
