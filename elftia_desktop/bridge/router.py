"""``McpRouter``: the UI's only way to the services, one route object per feature.

Each route method stands for one channel of the original IPC (``mcp:list``, ``mcp:add`` ...). It
validates its parameters first (a bad call is refused, never half-run), submits the work to the
service loop and returns a request id at once. The outcome arrives on the UI thread through the
``on_done`` / ``on_error`` callbacks (dropped when their ``receiver`` was destroyed meanwhile) and
the ``finished`` / ``failed`` signals. Service events arrive as the signals of :attr:`McpRouter.signals`.

Where to find a channel:

- ``router.servers`` (``bridge/routes/servers.py``): records, connections, trust, logs, states
- ``router.tools`` (``routes/tools.py``): tool lists, calls, switches
- ``router.agents`` (``routes/agents.py``): agents, their tools, payload previews
- ``router.deps`` (``routes/dependencies.py``): runtimes
- ``router.gateway`` (``routes/gateway.py``): the entry other apps run, its install and the HTTP token
- ``router.integrations`` (``routes/integrations.py``): other apps' configs, the claude CLI
- ``router.settings`` (``routes/settings.py``): settings, folders, backup
- ``router.app`` (``routes/app_info.py``): presets, notices, install links
- ``router.explore`` (``routes/explore.py``): trying tools, prompts, resources
- ``router.auth`` (``routes/auth.py``): OAuth sign-in, sign-out, sign-in status
- ``router.registry`` (``routes/registry.py``): MCP registries (search, install, updates), ``.mcpb`` bundles
- ``router.tool_review`` (``routes/tool_review.py``): tools held back since they changed (pinning), review, accept
- ``router.skills`` (``routes/skills.py``): a server's skills (SEP-2640), accept a changed one, read a file
- ``router.icons`` (``routes/icons.py``): the icon of a registry entry, fetched and drawn like the cards'
- ``router.pool`` (``routes/pool.py``): the apps attached to the window's pool host, and quitting with them
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from PySide6.QtCore import QObject

from elftia_desktop.bridge.activity import ActivityLog
from elftia_desktop.bridge.events import EventRelay
from elftia_desktop.bridge.file_watch import FileWatch
from elftia_desktop.bridge.plumbing import RouterCore
from elftia_desktop.bridge.pool_host import WindowPool
from elftia_desktop.bridge.routes.agents import AgentRoute
from elftia_desktop.bridge.routes.app_info import AppRoute
from elftia_desktop.bridge.routes.auth import AuthRoute
from elftia_desktop.bridge.routes.dependencies import DependencyRoute
from elftia_desktop.bridge.routes.explore import ExploreRoute
from elftia_desktop.bridge.routes.gateway import GatewayRoute
from elftia_desktop.bridge.routes.icons import IconRoute
from elftia_desktop.bridge.routes.integrations import IntegrationRoute
from elftia_desktop.bridge.routes.pool import PoolRoute
from elftia_desktop.bridge.routes.registry import RegistryRoute
from elftia_desktop.bridge.routes.servers import ServerRoute
from elftia_desktop.bridge.routes.settings import SettingsRoute
from elftia_desktop.bridge.routes.skills import SkillRoute
from elftia_desktop.bridge.routes.tasks import TaskRoute
from elftia_desktop.bridge.routes.tool_review import ToolReviewRoute
from elftia_desktop.bridge.routes.tools import ToolRoute
from elftia_desktop.bridge.service_loop import ServiceLoop
from elftia_desktop.bridge.signals import RouterSignals

if TYPE_CHECKING:
    from elftia_desktop.bridge.services import AppServices
    from elftia_desktop.core.approvals import Answer

__all__ = ["McpRouter"]


class McpRouter:
    """Every channel, grouped by feature, over one :class:`RouterCore` (see the module docstring)."""

    def __init__(
        self, loop: ServiceLoop[AppServices], parent: QObject | None = None, pool: WindowPool | None = None
    ) -> None:
        """``pool``: the window's pool host, when the services were built with it (``build_services(pool)``)."""
        self.signals = RouterSignals(parent)
        """Every signal the router emits (documented on :class:`RouterSignals`)."""
        self.core = RouterCore(loop, self.signals)
        self.activity = ActivityLog(self.signals)
        """Recent tool calls per server (bounded, in memory), fed by ``toolCalled``; sandbox denials by ``logLine``."""
        self.signals.toolCalled.connect(self.activity.record)
        self.signals.logLine.connect(self.activity.note_log_line)
        self.events = EventRelay(self.signals, self.core.next_id)
        loop.when_built(self.events.wire)  # once, on the loop, before any request sees the services
        self.core.approve = self.events.approve
        self.file_watch = FileWatch(loop, self.signals)
        """Follows the config, agents and settings files changed by other processes."""
        self.pool = PoolRoute(self.core, pool)
        if pool is not None:  # after the relay: the host's answer to a server's question wins
            pool.fallback = self.events.elicit
            pool.approve = self.events.approve
            loop.when_built(pool.start)
        self.servers = ServerRoute(self.core)
        self.tools = ToolRoute(self.core)
        self.agents = AgentRoute(self.core)
        self.deps = DependencyRoute(self.core)
        self.gateway = GatewayRoute(self.core)
        self.integrations = IntegrationRoute(self.core)
        self.settings = SettingsRoute(self.core)
        self.app = AppRoute(self.core)
        self.explore = ExploreRoute(self.core)
        self.auth = AuthRoute(self.core)
        self.registry = RegistryRoute(self.core)
        self.tool_review = ToolReviewRoute(self.core)
        self.skills = SkillRoute(self.core)
        self.icons = IconRoute(self.core)
        self.tasks = TaskRoute(self.core)

    def answer_elicitation(
        self, ticket: int, action: Literal["accept", "decline", "cancel"], content: dict[str, Any] | None = None
    ) -> None:
        """Answer an ``elicitationRequested``: accept (with ``content``), decline or cancel."""
        self.events.answer(ticket, action, content if action == "accept" else None)

    def answer_approval(self, ticket: int, answer: Answer) -> None:
        """Answer an ``approvalRequested``: allow once, always allow the tool, or deny."""
        self.events.answer_approval(ticket, answer)
