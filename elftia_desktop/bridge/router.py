"""``McpRouter``: one method per channel of the original IPC (``mcp:list``, ``mcp:add`` ...).

Each method validates its parameters with the pydantic models first (the original's
``secureHandle`` guard: a bad call is refused, never half-run), submits the work to the
service loop and returns a request id at once. The outcome arrives on the UI thread as the
``finished`` or ``failed`` signal and, when given, through the ``on_done`` / ``on_error``
callbacks. Service events are re-emitted as Qt signals.

Where to find a channel (the shared plumbing is ``bridge/plumbing.py``):

- ``bridge/routes/servers.py``: records, connections, trust, logs, states
- ``routes/tools.py``: tool lists, calls, switches
- ``routes/agents.py``: agents, their tools, payload previews
- ``routes/dependencies.py``: runtimes
- ``routes/gateway.py``: the entry other apps run, its install and the HTTP token
- ``routes/integrations.py``: other apps' configs, the claude CLI
- ``routes/settings.py``: settings, folders, backup
- ``routes/app_info.py``: presets, notices
- ``routes/explore.py``: trying tools, prompts, resources; the activity log
- ``routes/links.py``: install links
- ``routes/auth.py``: OAuth sign-in, sign-out, sign-in status
- ``routes/tool_review.py``: tools held back since they changed (tool pinning), review, accept
"""

from __future__ import annotations

from elftia_desktop.bridge.routes.agents import AgentChannels
from elftia_desktop.bridge.routes.app_info import AppChannels
from elftia_desktop.bridge.routes.auth import AuthChannels
from elftia_desktop.bridge.routes.dependencies import DependencyChannels
from elftia_desktop.bridge.routes.explore import ExploreChannels
from elftia_desktop.bridge.routes.gateway import GatewayChannels
from elftia_desktop.bridge.routes.integrations import IntegrationChannels
from elftia_desktop.bridge.routes.links import LinkChannels
from elftia_desktop.bridge.routes.servers import ServerChannels
from elftia_desktop.bridge.routes.settings import SettingsChannels
from elftia_desktop.bridge.routes.tool_review import ToolReviewChannels
from elftia_desktop.bridge.routes.tools import ToolChannels

__all__ = ["McpRouter"]


class McpRouter(
    ServerChannels,
    ToolChannels,
    AgentChannels,
    DependencyChannels,
    GatewayChannels,
    IntegrationChannels,
    SettingsChannels,
    AppChannels,
    ExploreChannels,
    LinkChannels,
    AuthChannels,
    ToolReviewChannels,
):
    """The UI's only way to the services: every channel, over one :class:`RouterCore`.

    Signals: see :class:`~elftia_desktop.bridge.plumbing.RouterCore` and
    :class:`~elftia_desktop.bridge.routes.explore.ExploreChannels` (``toolProgress``).
    """
