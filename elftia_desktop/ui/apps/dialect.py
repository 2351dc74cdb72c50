"""The host side of the MCP Apps ``ui/*`` dialect: JSON-RPC 2.0 between one view and the window.

The view is untrusted: every request it sends is checked here. ``tools/call`` reaches only the view's own
server, only tools whose ``_meta.ui.visibility`` lets apps call them, and goes through the pool with the
same approval as any call from the window (``mcp:call-tool``); ``ui/open-link`` opens nothing before the
user agreed in a dialog naming the domain; ``resources/read`` reads from the same server. Host-to-view
notifications (the tool's input and result) wait for the view's ``ui/notifications/initialized``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QUrl, Signal
from PySide6.QtGui import QDesktopServices

from elftia_desktop import __version__
from elftia_desktop.ui.apps.context import DISPLAY_MODE, host_context
from elftia_desktop.ui.apps.meta import PROTOCOL_VERSION, ViewPolicy, visible_to_app

if TYPE_CHECKING:
    from elftia_desktop.bridge.errors import BridgeError
    from elftia_desktop.bridge.results_explore import Discovery
    from elftia_desktop.bridge.router import McpRouter
    from elftia_desktop.core.models import MCPCallToolResponse

log = logging.getLogger(__name__)

LinkAsker = Callable[[QUrl, Callable[[bool], None]], None]
"""Asks the user whether to open a link (the URL, then the answer: True opens it)."""
METHOD_NOT_FOUND, INVALID_PARAMS, DENIED = -32601, -32602, -32000
NO_CONVERSATION = frozenset({"ui/message", "ui/update-model-context"})
"""Requests for a chat that the Try dialog does not have."""
LINK_SCHEMES = frozenset({"http", "https"})


def call_result(response: MCPCallToolResponse) -> dict[str, Any]:
    """A call's response as the protocol's ``CallToolResult``."""
    result: dict[str, Any] = {"content": response.content, "isError": response.is_error}
    if response.structured_content is not None:
        result["structuredContent"] = response.structured_content
    return result


class AppDialect(QObject):
    """One view's conversation with the host: feed :meth:`receive`, send what :attr:`post` emits."""

    post = Signal(str)
    """A JSON-RPC message for the view."""
    heightChanged = Signal(int)
    """The view reported the height of its content (``ui/notifications/size-changed``)."""

    def __init__(
        self,
        router: McpRouter,
        server_id: str,
        tool: Mapping[str, Any],
        policy: ViewPolicy,
        ask_link: LinkAsker,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._router = router
        self._server_id = server_id
        self._tool = dict(tool)
        self._policy = policy
        self._ask_link = ask_link
        self.container = (640, 2000)
        """Width and maximum height of the frame (``containerDimensions``)."""
        self.initialized = False
        """True once the view sent ``ui/notifications/initialized``."""
        self._queued: list[dict[str, Any]] = []
        self._tools: dict[str, dict[str, Any]] | None = None
        self._list_error = ""
        self._waiting: list[Callable[[], None]] = []
        self._requests: dict[str, Callable[[Any, dict[str, Any]], None]] = {
            "ui/initialize": self._initialize,
            "ping": lambda rid, _params: self._answer(rid, {}),
            "tools/call": self._call_tool,
            "resources/read": self._read_resource,
            "ui/open-link": self._open_link,
            "ui/request-display-mode": lambda rid, _params: self._answer(rid, {"mode": DISPLAY_MODE}),
        }
        router.servers.discover(server_id).then(self, self._listed, self._list_failed)

    # -- from the view ------------------------------------------------------------------------

    def receive(self, text: str) -> None:
        """Handle one message from the view (a request, a notification, or an answer to ours)."""
        try:
            message = json.loads(text)
        except ValueError:
            log.debug("an MCP App view sent something that is not JSON: %.200s", text)
            return
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            return  # an answer (to ui/resource-teardown) or noise
        method, rid = message["method"], message.get("id")
        params = message["params"] if isinstance(message.get("params"), dict) else {}
        if rid is None:
            self._notified(method, params)
        elif method in self._requests:
            self._requests[method](rid, params)
        elif method in NO_CONVERSATION:
            self._error(rid, DENIED, f"{method}: the Try dialog has no conversation to send it to")
        else:
            self._error(rid, METHOD_NOT_FOUND, f"{method} is not supported by this host")

    def _notified(self, method: str, params: dict[str, Any]) -> None:
        if method == "ui/notifications/initialized":
            self.initialized = True
            for message in self._queued:
                self._send(message)
            self._queued.clear()
        elif method == "ui/notifications/size-changed":
            height = params.get("height")
            if isinstance(height, int | float) and height >= 0:
                self.heightChanged.emit(int(height))
        elif method == "notifications/message":
            log.info("MCP App view of %s: %.500s", self._tool.get("name"), params.get("data"))

    def _initialize(self, rid: Any, _params: dict[str, Any]) -> None:
        sandbox_csp = {"connectDomains": list(self._policy.connect), "resourceDomains": list(self._policy.resources)}
        capabilities = {
            "openLinks": {},
            "serverTools": {},
            "serverResources": {},
            "logging": {},
            "sandbox": {"permissions": {}, "csp": sandbox_csp},
        }
        width, max_height = self.container
        self._answer(
            rid,
            {
                "protocolVersion": PROTOCOL_VERSION,
                "hostInfo": {"name": "elftia-desktop", "version": __version__},
                "hostCapabilities": capabilities,
                "hostContext": host_context(self._tool, width, max_height),
            },
        )

    def _call_tool(self, rid: Any, params: dict[str, Any]) -> None:
        name, args = params.get("name"), params.get("arguments", {})
        if not isinstance(name, str) or not isinstance(args, dict):
            self._error(rid, INVALID_PARAMS, "tools/call needs name (a string) and arguments (an object)")
            return
        self._when_listed(lambda: self._call_listed(rid, name, args))

    def _call_listed(self, rid: Any, name: str, args: dict[str, Any]) -> None:
        tool = (self._tools or {}).get(name)
        if tool is None:
            self._error(rid, INVALID_PARAMS, f"{name}: no such tool on this server {self._list_error}".strip())
        elif not visible_to_app(tool):
            self._error(rid, DENIED, f'{name}: its _meta.ui.visibility leaves out "app"; a view may not call it')
        else:
            self._router.tools.call(self._server_id, name, args).then(
                self,
                lambda response: self._answer(rid, call_result(response)),
                lambda error: self._failed(rid, error),
            )

    def _read_resource(self, rid: Any, params: dict[str, Any]) -> None:
        uri = params.get("uri")
        if not isinstance(uri, str):
            self._error(rid, INVALID_PARAMS, "resources/read needs uri (a string)")
            return
        self._router.explore.read_resource(self._server_id, uri).then(
            self, lambda result: self._answer(rid, result.payload), lambda error: self._failed(rid, error)
        )

    def _open_link(self, rid: Any, params: dict[str, Any]) -> None:
        url = QUrl(str(params.get("url", "")), QUrl.ParsingMode.StrictMode)
        if not url.isValid() or url.scheme() not in LINK_SCHEMES or not url.host():
            self._error(rid, INVALID_PARAMS, f"Invalid URL: {params.get('url')!r} (http or https links only)")
            return
        self._ask_link(url, lambda allowed: self._link_answered(rid, url, allowed))

    def _link_answered(self, rid: Any, url: QUrl, allowed: bool) -> None:
        if not allowed:
            self._error(rid, DENIED, "Link opening denied by user")
        elif QDesktopServices.openUrl(url):
            self._answer(rid, {})
        else:
            self._error(rid, DENIED, f"No program opened {url.toString()}")

    # -- the server's tools -------------------------------------------------------------------

    def _listed(self, result: Discovery) -> None:
        self._tools = {tool.name: tool.definition for tool in result.tools}
        self._list_error = "" if result.success else f"({result.error})"
        self._run_waiting()

    def _list_failed(self, error: BridgeError) -> None:
        self._tools, self._list_error = {}, f"(its tools could not be listed: {error.message})"
        self._run_waiting()

    def _when_listed(self, action: Callable[[], None]) -> None:
        if self._tools is None:
            self._waiting.append(action)
        else:
            action()

    def _run_waiting(self) -> None:
        waiting, self._waiting = self._waiting, []
        for action in waiting:
            action()

    # -- to the view --------------------------------------------------------------------------

    def show_call(self, args: Mapping[str, Any], response: MCPCallToolResponse) -> None:
        """Tell the view about the Try dialog's call: ``tool-input``, then ``tool-result``."""
        self._notify("ui/notifications/tool-input", {"arguments": dict(args)})
        self._notify("ui/notifications/tool-result", call_result(response))

    def show_cancelled(self, reason: str) -> None:
        """Tell the view the Try dialog's call was cancelled or failed."""
        self._notify("ui/notifications/tool-cancelled", {"reason": reason})

    def teardown(self, reason: str) -> None:
        """Tell the view it is about to go (``ui/resource-teardown``; its answer is not awaited)."""
        if self.initialized:
            params = {"reason": reason}
            self._send({"jsonrpc": "2.0", "id": "teardown", "method": "ui/resource-teardown", "params": params})

    def _notify(self, method: str, params: dict[str, Any]) -> None:
        message = {"jsonrpc": "2.0", "method": method, "params": params}
        if self.initialized:
            self._send(message)
        else:
            self._queued.append(message)

    def _failed(self, rid: Any, error: BridgeError) -> None:
        self._error(rid, DENIED, f"{error.kind}: {error.message}")

    def _answer(self, rid: Any, result: Any) -> None:
        self._send({"jsonrpc": "2.0", "id": rid, "result": result})

    def _error(self, rid: Any, code: int, message: str) -> None:
        self._send({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})

    def _send(self, message: dict[str, Any]) -> None:
        self.post.emit(json.dumps(message))
