"""Registry channels: sync and search the registries, prepare an entry's install form, install it,
open and install a ``.mcpb`` bundle, and find servers with a newer version.

The entries of every registry (and the featured ones shipped with the app) are held here, in
memory, after ``registry:sync``; :meth:`RegistryChannels.registry_search` answers a keystroke from
them on the UI thread (no I/O, well under a frame). Everything else runs on the service loop.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from elftia_desktop.application import registry as registry_actions
from elftia_desktop.bridge.pending import Pending
from elftia_desktop.bridge.plumbing import Route, RouterCore
from elftia_desktop.core.errors import ConfigError, ElftiaError
from elftia_desktop.registry.cache import RegistryCache, RegistryIndex, featured_entries
from elftia_desktop.registry.client import REGISTRY_URL_ENV, RegistryClient
from elftia_desktop.registry.entry import RegistryEntry, runtime_label, transport_label
from elftia_desktop.registry.form import FormField
from elftia_desktop.registry.install import Prepared, bundle_file_plan, bundle_runtime_problems, prepare
from elftia_desktop.registry.plan import default_server_name
from elftia_desktop.registry.updates import find_outdated

if TYPE_CHECKING:
    from elftia_desktop.bridge.services import AppServices
    from elftia_desktop.core.models import McpActionResult, McpServerInput, McpServerRecord
    from elftia_desktop.registry.bundle_plan import BundlePlan


@dataclass(frozen=True)
class EntryView:
    """One search result as the Browse page shows it."""

    key: str
    """``source`` + newline + ``name``: what the other channels take."""
    name: str
    title: str
    description: str
    version: str
    source: str
    status: str
    runtime: str
    transport: str
    installable: bool
    status_text: str = ""
    """The status with the registry's ``statusMessage`` (``deprecated: replaced by …``)."""
    icons: list[dict[str, Any]] = field(default_factory=list)
    """The entry's ``icons`` (drawn through ``router.icons``, like the cards' icons)."""


@dataclass(frozen=True)
class InstallForm:
    """What the details pane and the bundle dialog show before an install."""

    key: str
    title: str
    version: str
    kind: str
    fields: list[FormField]
    command: str
    default_name: str
    notes: list[str] = field(default_factory=list)
    """Lines to read first: a missing runtime, a bundle's author, tools and signature."""
    missing_runtime: str | None = None
    """A command the server needs that the app can install (``uvx`` ...), when it is missing."""
    post_install: str | None = None
    """The entry's ``postInstallInstructions``: shown after the install as text, never run."""


def entry_key(entry: RegistryEntry) -> str:
    """The key of an entry (source and name)."""
    return f"{entry.source}\n{entry.server.name}"


def _view(entry: RegistryEntry) -> EntryView:
    server = entry.server
    return EntryView(
        key=entry_key(entry),
        name=server.name,
        title=server.title or server.name.rsplit("/", 1)[-1],
        description=server.description,
        version=server.version,
        source=entry.source,
        status=entry.status.value,
        runtime=runtime_label(server),
        transport=transport_label(server),
        installable=entry.installable,
        status_text=entry.status_text,
        icons=[icon for icon in server.icons or () if isinstance(icon, dict)],
    )


def registry_urls(saved: str, extra: list[str]) -> list[str]:
    """The registries to sync: ``ELFTIA_REGISTRY_URL`` or the saved one, then the extra ones."""
    main = (os.environ.get(REGISTRY_URL_ENV) or saved).rstrip("/")
    return list(dict.fromkeys([main, *(u.rstrip("/") for u in extra)]))


class RegistryRoute(Route):
    """``registry:sync``, ``registry:prepare``, ``registry:install``, ``bundle:open``, ``bundle:install``,
    ``registry:outdated``, ``registry:update``; and the in-memory search."""

    def __init__(self, core: RouterCore) -> None:
        super().__init__(core)
        self._index = RegistryIndex(featured_entries())
        self._prepared: dict[str, Prepared] = {}
        self._bundles: dict[str, BundlePlan] = {}

    def search(self, query: str, *, include_removed: bool = False) -> list[EntryView]:
        """Search the entries held in memory (call on the UI thread: no I/O)."""
        return [_view(e) for e in self._index.search(query, include_removed=include_removed)]

    def sync(self) -> Pending[list[str]]:
        """``registry:sync``: refresh every registry's cache; the result is the list of problems met."""
        index = self._index

        async def work(s: AppServices) -> list[str]:
            """``registry:sync`` on the service loop."""
            entries, problems = list(featured_entries()), []
            for url in registry_urls(s.settings.registry_url, s.settings.extra_registries):
                cache = await asyncio.to_thread(RegistryCache(url).load)
                try:
                    await cache.sync(RegistryClient(url))
                except ElftiaError as exc:  # one registry down must not hide the others
                    problems.append(f"{url}: {exc}")
                entries = list(cache.entries.values()) + entries
            index.replace(entries)
            return problems

        return self._core.submit("registry:sync", work)

    def prepare(self, key: str) -> Pending[InstallForm]:
        """``registry:prepare``: choose the package for this machine; the result is an :class:`InstallForm`."""
        source, _, name = key.partition("\n")
        entry = self._index.find(name, source)
        prepared_by_key = self._prepared

        async def work(s: AppServices) -> InstallForm:
            """``registry:prepare`` on the service loop."""
            if entry is None:
                raise ConfigError(f"{name}: no such entry in {source}; search again")
            prepared = await prepare(entry, s.deps, allow_inactive=True)
            prepared_by_key[key] = prepared
            return _form(key, entry, prepared)

        return self._core.submit("registry:prepare", work)

    def preview(self, key: str, values: Mapping[str, str]) -> str:
        """The command line or URL with the values typed so far (UI thread, no I/O); ``key`` may be a bundle's path."""
        prepared, bundle = self._prepared.get(key), self._bundles.get(key)
        if bundle is not None:
            return bundle.preview(values)
        return prepared.preview(values) if prepared is not None else ""

    def install(self, key: str, name: str, values: dict[str, str]) -> Pending[McpServerRecord]:
        """``registry:install``: add the server untrusted (secrets to the keyring); the result is its record."""
        prepared = self._prepared.get(key)

        async def work(s: AppServices) -> McpServerRecord:
            """``registry:install`` on the service loop."""
            if prepared is None:
                raise ConfigError("Open the entry's details again before installing")
            return await _add(s, prepared.to_input(name, values), prepared.bundle)

        return self._core.submit("registry:install", work)

    def open_bundle(self, path: str) -> Pending[InstallForm]:
        """``bundle:open``: read and check a ``.mcpb`` file; the result is an :class:`InstallForm`."""
        bundles = self._bundles

        async def work(s: AppServices) -> InstallForm:
            """``bundle:open`` on the service loop."""
            plan = await asyncio.to_thread(bundle_file_plan, Path(path))
            bundles[path] = plan
            form = _bundle_form(path, plan)
            form.notes.extend(f"This bundle {p}." for p in await bundle_runtime_problems(plan, s.deps))
            return form

        return self._core.submit("bundle:open", work)

    def install_bundle(self, path: str, name: str, values: dict[str, str]) -> Pending[McpServerRecord]:
        """``bundle:install``: unpack into the data folder and add the server untrusted."""
        plan = self._bundles.get(path)

        async def work(s: AppServices) -> McpServerRecord:
            """``bundle:install`` on the service loop."""
            if plan is None:
                raise ConfigError(f"{path}: open the bundle again before installing")
            return await _add(s, plan.to_input(name, values), plan)

        return self._core.submit("bundle:install", work)

    def outdated(self) -> Pending[dict[str, str]]:
        """``registry:outdated``: ``{serverId: latestVersion}`` of servers with a newer version."""

        async def work(s: AppServices) -> dict[str, str]:
            """``registry:outdated`` on the service loop."""
            found, _problems = await find_outdated(await s.mcp.list_servers(), {})
            return {o.record.id: o.latest for o in found}

        return self._core.submit("registry:outdated", work)

    def update(self, server_id: str) -> Pending[McpServerRecord]:
        """``registry:update``: re-pin to the latest version, keep the inputs; the server is untrusted again."""

        async def work(s: AppServices, valid_id: str) -> McpServerRecord:
            """``registry:update`` on the service loop."""
            record = await asyncio.to_thread(s.catalog.get, valid_id)
            origin = record.registry_origin
            if origin is None:
                raise ConfigError(f"{record.name} was not installed from a registry")
            entry = await RegistryClient(origin.registry).entry(origin.name, "latest")
            prepared = await prepare(entry, s.deps)
            return _record_of(await registry_actions.repin(s.mcp, record, prepared.plan))

        return self._by_id("registry:update", server_id, work)


async def _add(s: AppServices, server: McpServerInput, bundle: BundlePlan | None) -> McpServerRecord:
    """Add the server untrusted through the service (a bundle unpacked first); see ``application.registry``."""
    return _record_of(await registry_actions.install(s.mcp, server, bundle))


def _record_of(result: McpActionResult) -> McpServerRecord:
    if not result.success or result.server is None:
        raise ConfigError(result.error or "The server could not be saved")
    return result.server


def _form(key: str, entry: RegistryEntry, prepared: Prepared) -> InstallForm:
    notes = []
    check = prepared.runtime_check
    missing = check is not None and not check.installed
    if check is not None and missing:
        how = "the app can install it" if check.installable else "see the Dependencies page"
        notes.append(f"Needs {check.command}, which is not installed: {how}.")
    if not entry.installable:
        notes.append(f"This entry is {entry.status_text} (in its registry).")
    return InstallForm(
        key=key,
        title=entry.server.title or entry.server.name,
        version=prepared.plan.version,
        kind=prepared.plan.kind,
        fields=prepared.fields,
        command=prepared.preview(),
        default_name=default_server_name(entry),
        notes=notes,
        missing_runtime=check.command if check is not None and missing and check.installable else None,
        post_install=entry.server.postInstallInstructions,
    )


def _bundle_form(path: str, plan: BundlePlan) -> InstallForm:
    manifest = plan.bundle.manifest
    notes = [f"By {manifest.author.name or 'an unknown author'} · {plan.bundle.signature.text}"]
    if manifest.tools:
        notes.append("Tools: " + ", ".join(t.name for t in manifest.tools))
    return InstallForm(
        key=path,
        title=manifest.display_name or manifest.name,
        version=manifest.version,
        kind=f"{manifest.server.type} bundle",
        fields=plan.fields,
        command=plan.preview(),
        default_name=manifest.display_name or manifest.name,
        notes=notes,
    )
