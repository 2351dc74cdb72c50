"""The disk cache: a full sync, then ``updated_since`` refreshes; several registries; featured entries."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from elftia_desktop.registry.cache import RegistryCache, RegistryIndex, featured_entries
from elftia_desktop.registry.client import RegistryClient
from elftia_desktop.registry.entry import EntryStatus
from elftia_desktop.registry.plan import plan_install
from tests.registry.registry_server import LocalRegistry, load_entries, serve_registry


def test_full_sync_then_updated_since(registry: LocalRegistry, tmp_path: Path) -> None:
    cache = RegistryCache(registry.url, tmp_path)
    first = asyncio.run(cache.sync(RegistryClient(registry.url)))
    assert (first.entries, first.full) == (8, True)
    assert not any("updated_since" in r for r in registry.requests)
    stamp = cache.synced_at
    assert stamp is not None and json.loads(cache.path.read_text())["syncedAt"] == stamp

    newer = json.loads(json.dumps(registry.latest()["io.github.example/weather-oci"].server))
    newer["version"] = newer["packages"][0]["version"] = "1.3.0"
    registry.publish(newer)
    registry.entries[-1].published_at = "2999-01-01T00:00:00Z"  # after the sync, whatever the clock says
    registry.requests.clear()
    second = asyncio.run(cache.sync(RegistryClient(registry.url)))
    assert (second.entries, second.changed, second.full) == (8, 1, False)
    assert all(f"updated_since={stamp.replace(':', '%3A')}" in r for r in registry.requests)

    reloaded = RegistryCache(registry.url, tmp_path).load()
    assert reloaded.entries["io.github.example/weather-oci"].server.version == "1.3.0"
    assert reloaded.entries["io.github.example/old-server"].status is EntryStatus.DEPRECATED
    assert reloaded.entries["io.github.example/gone-server"].status is EntryStatus.DELETED


def test_a_broken_cache_file_means_a_full_sync(registry: LocalRegistry, tmp_path: Path) -> None:
    cache = RegistryCache(registry.url, tmp_path)
    tmp_path.mkdir(exist_ok=True)
    cache.path.write_text("{ not json")
    assert RegistryCache(registry.url, tmp_path).load().entries == {}
    assert asyncio.run(cache.sync(RegistryClient(registry.url))).full


def test_two_registries_each_entry_says_where_it_came_from(registry: LocalRegistry, tmp_path: Path) -> None:
    org_server = {"name": "com.acme/internal-tools", "description": "Acme's internal tools", "version": "2.0.0"}
    org_server["remotes"] = [{"type": "sse", "url": "https://mcp.acme.test/sse"}]
    with serve_registry([org_server]) as org:
        caches = [RegistryCache(url, tmp_path) for url in (registry.url, org.url)]
        for cache in caches:
            asyncio.run(cache.sync(RegistryClient(cache.registry)))
    index = RegistryIndex([*featured_entries(), *(e for c in caches for e in c.entries.values())])
    assert [(e.server.name, e.source) for e in index.search("acme")] == [("com.acme/internal-tools", org.url)]
    sources = {e.source for e in index.search("everything")}
    assert sources == {"featured", registry.url}
    assert index.find("io.github.modelcontextprotocol/server-everything").source == registry.url
    hidden = index.search("replaced by a newer")
    shown = index.search("replaced by a newer", include_removed=True)
    assert hidden == [] and [e.status for e in shown] == [EntryStatus.DEPRECATED]


def test_search_puts_name_hits_first() -> None:
    index = RegistryIndex(featured_entries())
    names = [e.server.name for e in index.search("git")]
    assert names[0] == "io.github.modelcontextprotocol/server-git"


def test_every_featured_entry_plans_on_a_machine_with_every_runtime() -> None:
    entries = featured_entries()
    assert len(entries) == 13
    everything = {"npx": True, "uvx": True, "docker": True}
    for entry in entries:
        plan = plan_install(entry, everything)
        assert plan.preview()  # a command or URL, pinned
        if plan.package is not None:
            assert plan.version in plan.preview()


def test_the_data_of_the_test_registry_is_real_server_json() -> None:
    for server in load_entries():
        assert server["$schema"].endswith("server.schema.json")
        assert server["version"] and (server.get("packages") or server.get("remotes"))
