"""Gateway channels: the entry other apps run, installing and removing it, and the HTTP token.

Every channel touches files or the keyring, so the work runs in a worker thread.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, TypeVar

from elftia_desktop.bridge.pending import Pending
from elftia_desktop.bridge.plumbing import Route
from elftia_desktop.bridge.results import GatewayApp, GatewayChange, GatewayInfo

if TYPE_CHECKING:
    from elftia_desktop.bridge.channels import GatewayTargetInput
    from elftia_desktop.bridge.services import AppServices
    from elftia_desktop.gateway.install import InstallPlan

T = TypeVar("T")
GatewayTarget = Mapping[str, object]
"""``{app?, agent?, hub?, remove?}`` (``GatewayTargetInput``): which app's config, which agent, which mode."""


def _agent_name(services: AppServices, agent: str | None) -> str | None:
    return services.agents.get(agent).name if agent else None


def _info(services: AppServices, target: GatewayTargetInput) -> GatewayInfo:
    from elftia_desktop.gateway.command import gateway_command
    from elftia_desktop.gateway.install import (
        INSTALL_APPS,
        config_path,
        entry_name,
        gateway_entry,
        install_app,
        installed_entry,
    )
    from elftia_desktop.gateway.token import gateway_token

    agent = _agent_name(services, target.agent)
    name = entry_name(agent)
    apps = []
    for app_id in INSTALL_APPS:
        fmt = install_app(app_id)
        path = config_path(fmt)
        entry = {fmt.root_key: {name: gateway_entry(fmt, agent, target.hub)}}
        text = json.dumps(entry, indent=2, ensure_ascii=False)
        apps.append(GatewayApp(fmt.id, fmt.label, str(path), installed_entry(fmt, path, name), text))
    command, args = gateway_command(agent, target.hub)
    line = (command, *args)
    token = gateway_token(services.catalog.vault)
    return GatewayInfo(name, tuple(apps), line, (*line, "--http", "8765"), "http://127.0.0.1:8765/mcp", token)


def _change(plan: InstallPlan, backup: str | None = None) -> GatewayChange:
    return GatewayChange(
        plan.app.id, plan.app.label, str(plan.path), plan.name, plan.diff, plan.changed, tuple(plan.warnings), backup
    )


class GatewayRoute(Route):
    """``gateway:info``, ``gateway:preview``, ``gateway:install``, ``gateway:uninstall``, ``gateway:reset-token``."""

    def _gateway(
        self, channel: str, target: GatewayTarget, work: Callable[[AppServices, GatewayTargetInput], T]
    ) -> Pending[T]:
        from elftia_desktop.bridge.channels import GatewayTargetInput

        async def run(services: AppServices, data: GatewayTargetInput) -> T:
            """``work`` in a worker thread (it reads files and the keyring)."""
            return await asyncio.to_thread(work, services, data)

        return self._core.call(channel, GatewayTargetInput, target, run)

    def info(self, target: GatewayTarget) -> Pending[GatewayInfo]:
        """``gateway:info`` ``{agent?, hub?}``: per app its entry JSON, config path and whether it is installed;
        the stdio and HTTP command lines and the HTTP token."""
        return self._gateway("gateway:info", target, _info)

    def preview(self, target: GatewayTarget) -> Pending[GatewayChange]:
        """``gateway:preview`` ``{app, agent?, hub?, remove?}``: the change as a diff; nothing is written."""

        def work(services: AppServices, data: GatewayTargetInput) -> GatewayChange:
            """``gateway:preview`` in a worker thread."""
            return _change(_plan(services, data))

        return self._gateway("gateway:preview", target, work)

    def apply(self, target: GatewayTarget) -> Pending[GatewayChange]:
        """``gateway:install`` / ``gateway:uninstall`` (``remove: true``): back up, then write the change."""

        def work(services: AppServices, data: GatewayTargetInput) -> GatewayChange:
            """``gateway:install`` / ``gateway:uninstall`` in a worker thread."""
            from elftia_desktop.gateway.install import apply_plan

            plan = _plan(services, data)
            backup = apply_plan(plan)
            return _change(plan, str(backup) if backup else None)

        channel = "gateway:uninstall" if target.get("remove") else "gateway:install"
        return self._gateway(channel, target, work)

    def reset_token(self) -> Pending[str]:
        """``gateway:reset-token``: a new HTTP token (clients with the old one get 401)."""

        async def run(services: AppServices) -> str:
            """``gateway:reset-token`` on the service loop (the keyring in a worker thread)."""
            from elftia_desktop.gateway.token import reset_token

            return await asyncio.to_thread(reset_token, services.catalog.vault)

        return self._core.submit("gateway:reset-token", run)


def _plan(services: AppServices, target: GatewayTargetInput) -> InstallPlan:
    from elftia_desktop.gateway.install import InstallError, plan_install, plan_uninstall

    if not target.app:
        raise InstallError("app: choose the app to change")
    agent = _agent_name(services, target.agent)
    if target.remove:
        return plan_uninstall(target.app, agent)
    return plan_install(target.app, agent, target.hub)
