"""``McpRouter``: one method per channel of the original IPC (``mcp:list``, ``mcp:add`` ...).

Each method validates its parameters with the pydantic models first (the original's
``secureHandle`` guard: a bad call is refused, never half-run), submits the work to the
service loop and returns a request id at once. The outcome arrives on the UI thread as the
``finished`` or ``failed`` signal and, when given, through the ``on_done`` / ``on_error``
callbacks. Service events are re-emitted as Qt signals.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal, Slot

from elftia_desktop.bridge.errors import BridgeError, to_bridge_error
from elftia_desktop.bridge.service_loop import ServiceLoop

if TYPE_CHECKING:
    from elftia_desktop.bridge.services import AppServices

Done = Callable[[Any], None]
Failed = Callable[[BridgeError], None]
Work = Callable[["AppServices"], Coroutine[Any, Any, Any]]


class McpRouter(QObject):
    """The UI's only way to the services.

    Signals:
        finished(int, str, object): request id, channel, result.
        failed(int, str, object): request id, channel, ``BridgeError``.
        busyChanged(bool): True while any request runs.
        connectionStateChanged(str, str, str): server id, state, error text ("" when none).
        serversChanged(): the server list changed.
        toolCalled(object): ``{serverId, toolName, duration, success}``.
        toolsChanged(str): a server's tool list changed.
        logLine(str, str): server id, one log line.
        elicitationRequested(int, str, str, object): ticket, server id, message, requested schema.
    """

    finished = Signal(int, str, object)
    failed = Signal(int, str, object)
    busyChanged = Signal(bool)
    connectionStateChanged = Signal(str, str, str)
    serversChanged = Signal()
    toolCalled = Signal(object)
    toolsChanged = Signal(str)
    logLine = Signal(str, str)
    elicitationRequested = Signal(int, str, str, object)
    _delivered = Signal(int, bool, object)

    def __init__(self, loop: ServiceLoop[AppServices], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._loop = loop
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[str, Done | None, Failed | None]] = {}
        self._elicitations: dict[int, asyncio.Future[tuple[str, dict[str, Any] | None]]] = {}
        self._delivered.connect(self._deliver, Qt.ConnectionType.QueuedConnection)
        self._events_wired = False

    # -- plumbing ----------------------------------------------------------------------------

    def _submit(self, channel: str, work: Work, on_done: Done | None, on_error: Failed | None) -> int:
        request_id = next(self._ids)
        self._pending[request_id] = (channel, on_done, on_error)
        if len(self._pending) == 1:
            self.busyChanged.emit(True)

        async def run(services: AppServices) -> Any:
            self._wire_events(services)
            return await work(services)

        future = self._loop.submit(run)
        future.add_done_callback(lambda f: self._finish(request_id, f))
        return request_id

    def _finish(self, request_id: int, future: concurrent.futures.Future[Any]) -> None:
        # Runs on the service loop thread: hand over to the UI thread through a queued signal.
        error = future.exception()
        if error is None:
            self._delivered.emit(request_id, True, future.result())
        else:
            self._delivered.emit(request_id, False, to_bridge_error(error))

    def _refuse(self, channel: str, error: Exception, on_error: Failed | None) -> int:
        request_id = next(self._ids)
        self._pending[request_id] = (channel, None, on_error)
        if len(self._pending) == 1:
            self.busyChanged.emit(True)
        self._delivered.emit(request_id, False, to_bridge_error(error))
        return request_id

    @Slot(int, bool, object)
    def _deliver(self, request_id: int, ok: bool, payload: object) -> None:
        channel, on_done, on_error = self._pending.pop(request_id, ("", None, None))
        if not self._pending:
            self.busyChanged.emit(False)
        if ok:
            self.finished.emit(request_id, channel, payload)
            if on_done is not None:
                on_done(payload)
        else:
            self.failed.emit(request_id, channel, payload)
            if on_error is not None:
                on_error(payload)  # type: ignore[arg-type]

    def _validated(
        self, channel: str, model_name: str, params: dict[str, Any], on_error: Failed | None
    ) -> tuple[Any, int]:
        # The models load on first use (the service loop imports them at start), so the
        # window never waits for pydantic.
        from pydantic import ValidationError

        from elftia_desktop.bridge import channels
        from elftia_desktop.core import models

        model = getattr(channels, model_name, None) or getattr(models, model_name)
        try:
            return model.model_validate(params), 0
        except ValidationError as exc:
            return None, self._refuse(channel, exc, on_error)

    def _wire_events(self, services: AppServices) -> None:
        if self._events_wired:
            return
        self._events_wired = True
        events = services.mcp.events
        events.on(
            "connection:state",
            lambda p: self.connectionStateChanged.emit(p["serverId"], str(p["state"]), p.get("error") or ""),
        )
        events.on("servers:changed", lambda p: self.serversChanged.emit())
        events.on("tool:called", lambda p: self.toolCalled.emit(dict(p)))
        events.on("tools:changed", lambda p: self.toolsChanged.emit(p["serverId"]))
        events.on("log", lambda p: self.logLine.emit(p["serverId"], p["line"]))
        services.mcp.set_elicitation_handler(self._elicit)

    # -- elicitation: the server asks the user for input ---------------------------------------

    async def _elicit(self, server_id: str, message: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        ticket = next(self._ids)
        future: asyncio.Future[tuple[str, dict[str, Any] | None]] = asyncio.get_running_loop().create_future()
        self._elicitations[ticket] = future
        self.elicitationRequested.emit(ticket, server_id, message, schema)
        try:
            return await future
        finally:
            self._elicitations.pop(ticket, None)

    def answer_elicitation(self, ticket: int, action: str, content: dict[str, Any] | None = None) -> None:
        """Answer an ``elicitationRequested``: action accept, decline or cancel."""
        from elftia_desktop.bridge.channels import ElicitationAnswer

        answer = ElicitationAnswer.model_validate({"action": action, "content": content})
        future = self._elicitations.get(ticket)
        if future is None:
            return

        def settle() -> None:
            if not future.done():
                future.set_result((answer.action, answer.content))

        self._loop.loop.call_soon_threadsafe(settle)

    # -- channels ------------------------------------------------------------------------------

    def list_servers(self, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:list``: every server record."""
        return self._submit("mcp:list", lambda s: s.mcp.list_servers(), on_done, on_error)

    def add(self, params: dict[str, Any], on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:add``: params in the ``McpServerInput`` shape."""
        server, refused = self._validated("mcp:add", "McpServerInput", params, on_error)
        if server is None:
            return refused
        return self._submit("mcp:add", lambda s: s.mcp.add(server), on_done, on_error)

    def add_json(self, params: dict[str, Any], on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:addJson``: ``{json, trust, onConflict}``."""
        data, refused = self._validated("mcp:addJson", "McpServerJsonInput", params, on_error)
        if data is None:
            return refused
        return self._submit("mcp:addJson", lambda s: s.mcp.add_json(data), on_done, on_error)

    def remove(self, server_id: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:remove``."""
        return self._by_id("mcp:remove", server_id, lambda s, i: s.mcp.remove(i), on_done, on_error)

    def update(
        self, server_id: str, updates: dict[str, Any], on_done: Done | None = None, on_error: Failed | None = None
    ) -> int:
        """``mcp:update``: merge ``updates`` into the record."""
        data, refused = self._validated(
            "mcp:update", "McpServerUpdateInput", {"id": server_id, "updates": updates}, on_error
        )
        if data is None:
            return refused
        update = data
        return self._submit("mcp:update", lambda s: s.mcp.update(update.id, update.updates), on_done, on_error)

    def test(self, server_id: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:test``: connect and list tools."""
        return self._by_id("mcp:test", server_id, lambda s, i: s.mcp.test(i), on_done, on_error)

    def test_config(
        self,
        params: dict[str, Any],
        server_id: str | None = None,
        on_done: Done | None = None,
        on_error: Failed | None = None,
    ) -> int:
        """``mcp:test-config``: try an unsaved server (``McpServerInput`` shape) without saving it.

        ``server_id``: the saved server being edited, so its stored secrets resolve.
        """
        server, refused = self._validated("mcp:test-config", "McpServerInput", params, on_error)
        if server is None:
            return refused
        return self._submit("mcp:test-config", lambda s: s.mcp.test_config(server, server_id), on_done, on_error)

    def discover(self, server_id: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:discover``: tools, prompts, resources."""
        return self._by_id("mcp:discover", server_id, lambda s, i: s.mcp.discover(i), on_done, on_error)

    def trust(self, server_id: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:trust``: the user confirmed what the server runs."""
        return self._by_id("mcp:trust", server_id, lambda s, i: s.mcp.trust(i), on_done, on_error)

    def launch_info(self, server_id: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:launch-info``: what the server runs, for the trust dialog.

        Result: ``{name, transport, rows: [[label, value]], changes: [[field, confirmed, now]],
        needsConfirmation}``; secret values are never included.
        """

        async def work(s: AppServices, i: str) -> dict[str, Any]:
            from elftia_desktop.core.trust import describe_launch, launch_changes, needs_confirmation

            record = await asyncio.to_thread(s.catalog.get, i)
            return {
                "name": record.name,
                "transport": record.type.value,
                "rows": [list(row) for row in describe_launch(record)],
                "changes": [list(c) for c in launch_changes(record)] if record.trusted_launch else [],
                "needsConfirmation": needs_confirmation(record),
            }

        return self._by_id("mcp:launch-info", server_id, work, on_done, on_error)

    def reconnect(self, server_id: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:reconnect``."""
        return self._by_id("mcp:reconnect", server_id, lambda s, i: s.mcp.reconnect(i), on_done, on_error)

    def list_server_tools(self, server_id: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:list-server-tools``."""
        return self._by_id(
            "mcp:list-server-tools", server_id, lambda s, i: s.mcp.list_server_tools(i), on_done, on_error
        )

    def list_all_tools(self, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:list-all-tools``: an ``McpToolListing`` of every active server."""
        return self._submit("mcp:list-all-tools", lambda s: s.mcp.list_all_active_server_tools(), on_done, on_error)

    def call_tool(self, params: dict[str, Any], on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:call-tool``: ``{serverId, toolName, args, callId}``."""
        data, refused = self._validated("mcp:call-tool", "CallToolInput", params, on_error)
        if data is None:
            return refused
        call = data
        return self._submit(
            "mcp:call-tool",
            lambda s: s.mcp.call_tool(call.server_id, call.tool_name, call.args, call.call_id),
            on_done,
            on_error,
        )

    def set_tool_flag(self, params: dict[str, Any], on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:set-tool``: enable/disable a tool or its auto-approval (``ToolToggleInput``)."""
        data, refused = self._validated("mcp:set-tool", "ToolToggleInput", params, on_error)
        if data is None:
            return refused
        toggle = data

        async def work(s: AppServices) -> Any:
            record = await asyncio.to_thread(s.catalog.get, toggle.server_id)
            field = "disabledTools" if toggle.flag == "enabled" else "disabledAutoApproveTools"
            current = record.disabled_tools if toggle.flag == "enabled" else record.disabled_auto_approve_tools
            names = [n for n in current if n != toggle.tool_name]
            if not toggle.value:
                names.append(toggle.tool_name)
            return await s.mcp.update(toggle.server_id, {field: names})

        return self._submit("mcp:set-tool", work, on_done, on_error)

    def check_dependency(self, command: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:check-dependency``: is the runtime of ``command`` installed."""
        data, refused = self._validated("mcp:check-dependency", "DependencyInput", {"command": command}, on_error)
        if data is None:
            return refused
        dep = data
        return self._submit("mcp:check-dependency", lambda s: s.deps.check(dep.command), on_done, on_error)

    def install_dependency(
        self,
        command: str,
        on_progress: Callable[[str], None] | None = None,
        on_done: Done | None = None,
        on_error: Failed | None = None,
    ) -> int:
        """``mcp:install-dependency``: progress lines go to ``on_progress`` (on the UI thread) and to
        ``logLine`` with the id ``deps:{command}``."""
        data, refused = self._validated("mcp:install-dependency", "DependencyInput", {"command": command}, on_error)
        if data is None:
            return refused
        dep = data

        source = f"deps:{dep.command}"
        if on_progress is not None:
            listener = self._progress_listener(source, on_progress)
            self.logLine.connect(listener)
            on_done, on_error = (
                _then(on_done, lambda: self.logLine.disconnect(listener)),
                _then_error(on_error, lambda: self.logLine.disconnect(listener)),
            )

        def progress(line: str) -> None:
            self.logLine.emit(source, line)

        return self._submit(
            "mcp:install-dependency", lambda s: s.installer.install(dep.command, progress), on_done, on_error
        )

    @staticmethod
    def _progress_listener(source: str, on_progress: Callable[[str], None]) -> Callable[[str, str], None]:
        def listener(line_source: str, line: str) -> None:
            if line_source == source:
                on_progress(line)

        return listener

    def server_log(self, server_id: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:logs``: the server's recent log lines."""

        async def work(s: AppServices, i: str) -> list[str]:
            return s.mcp.server_log(i)

        return self._by_id("mcp:logs", server_id, work, on_done, on_error)

    def states(self, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:states``: ``{serverId: (state, error)}`` for every server."""

        async def work(s: AppServices) -> dict[str, tuple[str, str]]:
            records = await s.mcp.list_servers()
            return {r.id: (str(s.mcp.connection_state(r.id)), s.mcp.connection_error(r.id) or "") for r in records}

        return self._submit("mcp:states", work, on_done, on_error)

    def presets(self, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:presets``: the built-in and official server presets as JSON dicts."""

        async def work(s: AppServices) -> list[dict[str, Any]]:
            from elftia_desktop.core.presets import load_presets

            presets = await asyncio.to_thread(load_presets)
            return [p.model_dump(mode="json", by_alias=True, exclude_none=True) for p in presets]

        return self._submit("mcp:presets", work, on_done, on_error)

    def notices(self, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``app:notices``: problems found at start (config recovered, secrets in a file)."""

        async def work(s: AppServices) -> list[str]:
            return list(s.notices)

        return self._submit("app:notices", work, on_done, on_error)

    def _by_id(
        self,
        channel: str,
        server_id: str,
        work: Callable[[AppServices, str], Coroutine[Any, Any, Any]],
        on_done: Done | None,
        on_error: Failed | None,
    ) -> int:
        data, refused = self._validated(channel, "McpServerRemoveInput", {"id": server_id}, on_error)
        if data is None:
            return refused
        valid_id = data.id
        return self._submit(channel, lambda s: work(s, valid_id), on_done, on_error)


def _then(callback: Done | None, after: Callable[[], object]) -> Done:
    def run(result: Any) -> None:
        after()
        if callback is not None:
            callback(result)

    return run


def _then_error(callback: Failed | None, after: Callable[[], object]) -> Failed:
    def run(error: BridgeError) -> None:
        after()
        if callback is not None:
            callback(error)

    return run
