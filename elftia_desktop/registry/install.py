"""Installing from a registry entry or a bundle file: check the runtimes, download and verify an
``mcpb`` package, then add the server **untrusted** through the catalog (secrets to the keyring).

Nothing is written until every input is checked: an ``InputsMissing``, a SHA-256 mismatch or a bad
bundle leaves the config, the keyring and the bundles folder as they were.
"""

from __future__ import annotations

import asyncio
import hashlib
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx2

from elftia_desktop.core.models import DependencyCheckResult, McpServerInput, RegistryOrigin
from elftia_desktop.deps.checker import DependencyChecker
from elftia_desktop.deps.requirements import meets_minimum, parse_version
from elftia_desktop.registry.bundle import MAX_BUNDLE_BYTES, read_bundle
from elftia_desktop.registry.bundle_plan import BundlePlan, plan_bundle
from elftia_desktop.registry.entry import RegistryEntry
from elftia_desktop.registry.errors import DownloadMismatch, RegistryUnreachable
from elftia_desktop.registry.form import FormField
from elftia_desktop.registry.plan import RUNTIME_OF, InstallPlan, plan_install

DOWNLOAD_TIMEOUT = 120.0


@dataclass
class Prepared:
    """An entry ready for its form: the plan, and for an ``mcpb`` package the bundle plan too."""

    plan: InstallPlan
    bundle: BundlePlan | None = None
    runtime_check: DependencyCheckResult | None = None
    """The check of the runtime the chosen package needs (None for remotes)."""

    @property
    def fields(self) -> list[FormField]:
        """The inputs form."""
        return self.bundle.fields if self.bundle is not None else self.plan.fields

    def preview(self, given: Mapping[str, str] | None = None) -> str:
        """The command line or URL that will run."""
        if self.bundle is not None:
            return self.bundle.preview(given)
        return self.plan.preview(given)

    def to_input(self, name: str, given: Mapping[str, str]) -> McpServerInput:
        """The server to add (checks every input; writes nothing)."""
        if self.bundle is None:
            return self.plan.to_input(name, given)
        entry = self.plan.entry
        origin = RegistryOrigin(
            registry=entry.source, name=entry.server.name, version=self.plan.version, package="mcpb"
        )
        return self.bundle.to_input(name, given, origin)


async def runtimes_present(entry: RegistryEntry, checker: DependencyChecker) -> dict[str, DependencyCheckResult]:
    """The check of every runtime the entry's packages start with."""
    commands = sorted({RUNTIME_OF[p.registryType] for p in entry.server.packages if p.registryType in RUNTIME_OF})
    results = await asyncio.gather(*(checker.check(c) for c in commands))
    return dict(zip(commands, results, strict=True))


async def prepare(
    entry: RegistryEntry,
    checker: DependencyChecker,
    *,
    allow_inactive: bool = False,
    transport: httpx2.AsyncBaseTransport | None = None,
) -> Prepared:
    """Choose the package, check its runtime, and fetch and verify an ``mcpb`` download."""
    checks = await runtimes_present(entry, checker)
    plan = plan_install(entry, {c: r.installed for c, r in checks.items()}, allow_inactive=allow_inactive)
    if plan.kind != "mcpb" or plan.package is None:
        return Prepared(plan, None, checks.get(plan.runtime or ""))
    data = await download_verified(plan.package.identifier, plan.package.fileSha256 or "", transport=transport)
    bundle_plan = await asyncio.to_thread(_plan_downloaded, data, plan.package.identifier)
    return Prepared(plan, bundle_plan)


def _plan_downloaded(data: bytes, url: str) -> BundlePlan:
    with tempfile.TemporaryDirectory(prefix="elftia-download-") as tmp:
        path = Path(tmp) / (url.rsplit("/", 1)[-1] or "download.mcpb")
        path.write_bytes(data)
        return plan_bundle(read_bundle(path))


async def download_verified(
    url: str, sha256: str, *, transport: httpx2.AsyncBaseTransport | None = None, seconds: float = DOWNLOAD_TIMEOUT
) -> bytes:
    """The bytes at ``url`` if their SHA-256 is ``sha256``; ``DownloadMismatch`` otherwise."""
    digest = hashlib.sha256()
    chunks: list[bytes] = []
    size = 0
    try:
        async with (
            httpx2.AsyncClient(timeout=seconds, transport=transport, follow_redirects=True) as http,
            http.stream("GET", url) as response,
        ):
            if response.status_code >= 400:
                raise RegistryUnreachable(f"{url} answered HTTP {response.status_code}; nothing was installed")
            async for chunk in response.aiter_bytes():
                digest.update(chunk)
                chunks.append(chunk)
                size += len(chunk)
                if size > MAX_BUNDLE_BYTES:
                    raise DownloadMismatch(f"{url} is larger than 512 MB; nothing was installed")
    except httpx2.TimeoutException as exc:
        raise RegistryUnreachable(f"{url} did not finish downloading within {seconds:g} s") from exc
    except httpx2.HTTPError as exc:
        raise RegistryUnreachable(f"{url} cannot be downloaded: {exc or type(exc).__name__}") from exc
    actual = digest.hexdigest()
    if actual.lower() != sha256.lower():
        raise DownloadMismatch(
            f"{url}: SHA-256 is {actual}, but the registry published {sha256}; "
            "the file was changed, nothing was installed"
        )
    return b"".join(chunks)


async def bundle_runtime_problems(plan: BundlePlan, checker: DependencyChecker) -> list[str]:
    """What the bundle's ``compatibility.runtimes`` (``{"node": ">=18"}``) asks that this machine lacks."""
    commands = {"node": "node", "python": "python3", "uv": "uv"}
    problems = []
    for runtime, wanted in plan.bundle.manifest.compatibility.runtimes.items():
        command = commands.get(runtime)
        if command is None:
            continue
        check = await checker.check(command)
        minimum = parse_version(wanted) if wanted.strip().startswith(">=") else None
        if not check.installed:
            problems.append(f"needs {runtime} {wanted}, which is not installed")
        elif not meets_minimum(parse_version(check.version or ""), minimum):
            problems.append(f"needs {runtime} {wanted}; this computer has {check.version}")
    return problems


def bundle_file_plan(path: Path) -> BundlePlan:
    """Read a ``.mcpb`` file the user opened and plan its install (blocking: call off the loop)."""
    return plan_bundle(read_bundle(path), None)
