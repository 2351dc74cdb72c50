"""The gateway's entry for apps that accept HTTP servers: the pool host's URL and the ``Authorization`` header.

The URL is the pool host's own Streamable HTTP endpoint (``http_address.scope_path``: the agent
and hub mode in the path) on 127.0.0.1 at the port of the setting ``gatewayHttpPort``. When that
setting is 0 (a port the OS picks at each start, which an app's file cannot follow) installing
fixes it: to the port the running host listens on, else to a free one.

How the token stays out of the app's file:

* VS Code: ``${input:elftia-gateway-token}``, declared in ``inputs`` as a password prompt (VS Code
  asks once and keeps the answer in its secret storage);
* Claude Code ``${ELFTIA_GATEWAY_TOKEN}``, Cursor and Windsurf ``${env:ELFTIA_GATEWAY_TOKEN}``: the
  app reads the variable from the environment it starts with;
* LM Studio has no placeholder: the token is written, and the plan says so.

Claude Desktop's file holds stdio servers only: it keeps ``elftia-mcp serve``.

The URL answers only while a pool host runs, so installing also turns on start at login
(``platform/autostart.py``: ``elftia-mcp daemon run --stay``) unless ``--no-autostart``; the plan
says so in plain words. Removing an HTTP entry leaves start at login on and says how to turn it off.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from elftia_desktop.core.models import McpServerTransport
from elftia_desktop.core.paths import data_dir
from elftia_desktop.core.settings_store import SettingsStore
from elftia_desktop.gateway.http_address import DEFAULT_HOST, Address, read_endpoint, scope_path
from elftia_desktop.integrations.app_formats import AppFormat
from elftia_desktop.platform import autostart
from elftia_desktop.platform.autostart import AutostartState

HOST_LOG = "host.log"
"""The pool host's log in the data folder, where the host started at login appends its lines."""
TOKEN_ENV = "ELFTIA_GATEWAY_TOKEN"
"""The variable that holds the token for apps that expand environment variables."""
TOKEN_INPUT = "elftia-gateway-token"
"""The id of VS Code's input that asks for the token."""
TOKEN_BY = {"vscode": "input", "claude-code": "env", "cursor": "env", "windsurf": "env", "lmstudio": "plain"}
"""The apps that accept HTTP servers, and how each gets the token."""


@dataclass(frozen=True)
class HttpEntry:
    """An app's HTTP entry, and what installing it involves."""

    entry: dict[str, Any]
    port: int
    fix_port: bool
    """The setting ``gatewayHttpPort`` is 0: applying the plan fixes it to ``port``."""
    running_port: int | None
    """Where the pool host running now listens (None: none runs)."""
    token: str | None = None
    """The token, when it is written in plain text (the app has no placeholder)."""
    input: dict[str, Any] | None = None
    """VS Code's ``inputs`` item that asks for the token."""
    login: AutostartState | None = None
    """Start at login as it is now; None: leave it as it is (``--no-autostart``)."""

    @property
    def autostart(self) -> bool:
        """Whether applying the plan turns start at login on (and the host that stays starts now)."""
        return self.login is not None and not self.login.enabled and not self.login.foreign

    def notes(self, fmt: AppFormat, path: Path) -> Iterator[str]:
        """What the user must know: the port fixed, the token's way in, that the host must run."""
        if self.fix_port:
            yield f"the gateway's HTTP port is fixed at {self.port} (setting gatewayHttpPort) so this URL stays valid"
        if self.running_port is not None and self.running_port != self.port:
            yield (
                f"the pool host running now listens on port {self.running_port}; it moves to {self.port} "
                "when it next starts (elftia-mcp daemon stop)"
            )
        way = TOKEN_BY[fmt.id]
        if way == "env":
            yield (
                f"{fmt.label} reads the token from the variable {TOKEN_ENV}: set it in the environment "
                f"{fmt.label} starts with (its value: elftia-mcp gateway token)"
            )
        elif way == "input":
            yield f"{fmt.label} asks for the token once (elftia-mcp gateway token) and keeps it in its secret storage"
        else:
            yield (
                f"{fmt.label} has no secret placeholder: the bearer token is written into {path} in plain text "
                "(elftia-mcp gateway token --reset revokes it)"
            )
        yield from self._host_notes(fmt)

    def _host_notes(self, fmt: AppFormat) -> Iterator[str]:
        """That the app reaches Elftia only while a host runs, and what installing does about it."""
        needs = f"{fmt.label} reaches Elftia only while the pool host runs (the Elftia Desktop window, or the daemon)"
        if self.login is None:
            yield (
                f"{needs}; start at login stays as it is (--no-autostart): turn it on with "
                "elftia-mcp daemon autostart --on, or install with --stdio (the app then starts the host itself)"
            )
        elif self.login.foreign:
            yield f"{needs}; start at login is not turned on: {self.login.where} holds another program's entry"
        elif self.login.enabled:
            yield f"{needs}; start at login is on already ({self.login.where}) and the host is started now if none runs"
        else:
            yield (
                f"{needs}: installing turns on start at login ({self.login.where} runs elftia-mcp daemon run --stay) "
                "and starts that host now; it stays until stopped. --no-autostart skips both; "
                "elftia-mcp daemon autostart --off turns it off later"
            )


def http_entry(fmt: AppFormat, agent: str | None, hub: bool, token: str, login: bool = True) -> HttpEntry | None:
    """The HTTP entry of ``fmt`` for the scope (None: the app takes stdio servers only); ``login``: turn
    on start at login when applied."""
    way = TOKEN_BY.get(fmt.id)
    if way is None or not fmt.remote_ok:
        return None
    running = read_endpoint(data_dir())
    running_port = int(running["port"]) if running is not None and isinstance(running.get("port"), int) else None
    setting = SettingsStore().load().gateway_http_port
    port = setting or running_port or _free_port()
    placeholders = {"env": fmt.env_placeholder.format(name=TOKEN_ENV), "input": f"${{input:{TOKEN_INPUT}}}"}
    entry: dict[str, Any] = {}
    type_name = fmt.type_names.get(McpServerTransport.HTTP) if fmt.exportable else None
    if type_name:
        entry["type"] = type_name
    entry[fmt.url_keys[0]] = Address(DEFAULT_HOST, port).url.removesuffix("/mcp") + scope_path(agent, hub)
    entry["headers"] = {"Authorization": f"Bearer {placeholders.get(way, token)}"}
    prompt = {"type": "promptString", "id": TOKEN_INPUT, "description": "Elftia gateway token", "password": True}
    return HttpEntry(
        entry,
        port,
        fix_port=not setting,
        running_port=running_port,
        token=token if way == "plain" else None,
        input=prompt if way == "input" else None,
        login=autostart.state(autostart.Machine.current()) if login else None,
    )


def turn_on_autostart() -> AutostartState:
    """Turn on start at login for this installation (``AutostartError``, ``OSError`` when it cannot)."""
    return autostart.enable(autostart.Machine.current(), log=data_dir() / HOST_LOG)


def uninstall_notes(entry: dict[str, Any], others: list[str]) -> list[str]:
    """What removing ``entry`` leaves behind: start at login, when it is an HTTP entry and it is on.

    ``others``: the apps whose files still hold an HTTP entry of Elftia's.
    """
    if not any(isinstance(entry.get(key), str) for key in ("url", "serverUrl")):
        return []
    try:
        login = autostart.state(autostart.Machine.current())
    except autostart.AutostartError:
        return []
    if not login.enabled:
        return []
    if others:
        return [f"start at login stays on ({login.where}): the config of {', '.join(others)} has Elftia's HTTP address"]
    return [
        f"start at login stays on ({login.where}) though no other app's file has Elftia's HTTP address now; "
        "turn it off: elftia-mcp daemon autostart --off"
    ]


def fix_port(port: int) -> None:
    """Save ``port`` as the pool host's HTTP port (``gatewayHttpPort``)."""
    store = SettingsStore()
    store.save(store.load().model_copy(update={"gateway_http_port": port}))


def _free_port() -> int:
    """A port on 127.0.0.1 free now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((DEFAULT_HOST, 0))
        return int(probe.getsockname()[1])
