"""Installing a ``.mcpb`` bundle: its ``user_config`` form, platform overrides, compatibility,
a safe unpack into the app's data folder, and the untrusted server that runs it.

The unpack goes to a temporary folder next to the target and is renamed into place only when
every file is out, so a failure leaves nothing behind. Sensitive values may only reach the server
through its environment (they go to the keyring); a sensitive value on the command line is refused.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import sys
import tempfile
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from elftia_desktop.core.models import (
    McpServerConfig,
    McpServerInput,
    McpServerRecord,
    McpServerTransport,
    RegistryOrigin,
)
from elftia_desktop.core.paths import data_dir
from elftia_desktop.registry.bundle import Bundle, UserConfigOption, check_members
from elftia_desktop.registry.errors import BundleError
from elftia_desktop.registry.form import FormField, resolve_values

_VARIABLE = re.compile(r"\$\{([^}]+)\}")
_PLATFORMS = {"linux": "linux", "darwin": "darwin", "win32": "win32"}


def current_platform() -> str:
    """``linux``, ``darwin`` or ``win32``, the names manifests use."""
    return "win32" if sys.platform.startswith("win") else _PLATFORMS.get(sys.platform, sys.platform)


def bundles_folder() -> Path:
    """Where bundles are unpacked: ``{data dir}/bundles``."""
    return data_dir() / "bundles"


@dataclass
class BundlePlan:
    """A bundle ready to install: its form, the folder it will live in, what it needs."""

    bundle: Bundle
    fields: list[FormField]
    folder: Path
    runtime: str | None
    """The command the server starts with when it is a runtime (``node``, ``python3``, ``uv``)."""

    def to_input(self, name: str, given: Mapping[str, str], origin: RegistryOrigin | None = None) -> McpServerInput:
        """The untrusted server (the bundle must be unpacked to ``folder`` before it runs)."""
        values = resolve_values(self.fields, given)
        command, args, env = self._launch(values)
        manifest = self.bundle.manifest
        base = origin or RegistryOrigin(registry="bundle", name=manifest.name, version=manifest.version, package="mcpb")
        inputs = {f.key: values[f.key] for f in self.fields if not f.secret and f.key in values}
        secrets = [k for k, v in self.bundle.manifest.user_config.items() if v.sensitive]
        secret_env = [e for e, template in self._config_block()[2].items() if _uses(template, secrets)]
        return McpServerInput(
            name=name,
            type=McpServerTransport.STDIO,
            config=McpServerConfig(command=command, args=args, env=env, cwd=str(self.folder)),
            is_trusted=False,
            install_source="bundle" if origin is None else "registry",
            registry_origin=base.model_copy(update={"inputs": inputs}),
            secret_keys=secret_env,
        )

    def preview(self, given: Mapping[str, str] | None = None) -> str:
        """The command line with the values given so far (sensitive ones masked, missing ones as <KEY>)."""
        command, args, _env = self._config_block()
        options = self.bundle.manifest.user_config
        shown = {k: ("••••" if options[k].sensitive else v) for k, v in (given or {}).items() if k in options}
        for key, option in options.items():
            if key not in shown:
                default = next((f.default for f in self.fields if f.key == key and f.default), None)
                shown[key] = default if default is not None and not option.sensitive else f"<{key}>"
        parts = [self._expand(command, shown, options)[0]]
        for arg in args:
            parts += self._expand(arg, shown, options)
        return " ".join(parts)

    def _config_block(self) -> tuple[str, list[str], dict[str, str]]:
        server = self.bundle.manifest.server
        if server.mcp_config is None:
            entry = f"${{__dirname}}/{server.entry_point}"
            defaults = {
                "node": ("node", [entry]),
                "python": ("python3", [entry]),
                "uv": ("uv", ["run", "--directory", "${__dirname}", server.entry_point]),
                "binary": (entry, []),
            }
            command, args = defaults[server.type]
            return command, args, {}
        config = server.mcp_config
        override = config.platform_overrides.get(current_platform(), {})
        return (
            str(override.get("command", config.command)),
            [str(a) for a in override.get("args", config.args)],
            {**config.env, **{str(k): str(v) for k, v in (override.get("env") or {}).items()}},
        )

    def _launch(self, values: Mapping[str, str]) -> tuple[str, list[str], dict[str, str]]:
        command, args, env = self._config_block()
        options = self.bundle.manifest.user_config
        sensitive = [k for k, v in options.items() if v.sensitive]
        for arg in [command, *args]:
            if _uses(arg, sensitive):
                raise BundleError(
                    f"{self.bundle.path.name}: a sensitive setting is passed on the command line ({arg!r}); "
                    "sensitive values are only accepted in the environment, where the keyring keeps them"
                )
        out_args: list[str] = []
        for arg in args:
            out_args += self._expand(arg, values, options)
        filled_env = {k: " ".join(self._expand(v, values, options)) for k, v in env.items()}
        return self._expand(command, values, options)[0], out_args, {k: v for k, v in filled_env.items() if v}

    def _expand(self, text: str, values: Mapping[str, str], options: Mapping[str, UserConfigOption]) -> list[str]:
        """Substitute variables; an argument that is exactly a multi-valued setting becomes several."""
        whole = _VARIABLE.fullmatch(text)
        if whole and whole.group(1).startswith("user_config."):
            key = whole.group(1).removeprefix("user_config.")
            if key in options and options[key].multiple:
                return [v.strip() for v in re.split(r"[\n,]", values.get(key, "")) if v.strip()]

        def one(match: re.Match[str]) -> str:
            """The value of one ``${...}``: a user_config entry or a built-in variable."""
            name = match.group(1)
            if name.startswith("user_config."):
                return values.get(name.removeprefix("user_config."), "")
            return _builtin_variable(name, self.folder, match.group(0))

        return [_VARIABLE.sub(one, text)]


def _uses(text: str, keys: list[str]) -> bool:
    return any(f"${{user_config.{key}}}" in text for key in keys)


def _builtin_variable(name: str, folder: Path, original: str) -> str:
    home = Path.home()
    known = {
        "__dirname": str(folder),
        "HOME": str(home),
        "DESKTOP": str(home / "Desktop"),
        "DOCUMENTS": str(home / "Documents"),
        "DOWNLOADS": str(home / "Downloads"),
        "pathSeparator": os.sep,
        "/": os.sep,
    }
    return known.get(name, original)


def plan_bundle(bundle: Bundle, folder: Path | None = None) -> BundlePlan:
    """The form and target of a bundle; ``BundleError`` when it is not made for this platform."""
    manifest = bundle.manifest
    platforms = manifest.compatibility.platforms
    if platforms and current_platform() not in platforms:
        raise BundleError(
            f"{bundle.path.name} is made for {', '.join(platforms)}; this computer runs {current_platform()}"
        )
    fields = [_field(key, option) for key, option in manifest.user_config.items()]
    target = folder or _free_folder(bundles_folder() / _safe_folder_name(f"{manifest.name}-{manifest.version}"))
    runtime = {"node": "node", "python": "python3", "uv": "uv"}.get(manifest.server.type)
    return BundlePlan(bundle, fields, target, runtime)


def _field(key: str, option: UserConfigOption) -> FormField:
    default = option.default
    if isinstance(default, list):
        default = "\n".join(str(d) for d in default)
    elif isinstance(default, bool):
        default = "true" if default else "false"
    text = (
        None
        if default is None
        else _VARIABLE.sub(lambda m: _builtin_variable(m.group(1), Path(), m.group(0)), str(default))
    )
    return FormField(
        key=key,
        label=option.title or option.description or key,
        kind="config",
        required=option.required,
        secret=option.sensitive,
        default=text,
        format=option.type,
        multiple=option.multiple,
        placeholder=option.description,
    )


def _free_folder(base: Path) -> Path:
    """``base``, or ``base-2``, ``base-3`` ...: a folder no other install uses."""
    candidate, n = base, 2
    while candidate.exists():
        candidate, n = base.with_name(f"{base.name}-{n}"), n + 1
    return candidate


def _safe_folder_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or "bundle"


def discard_unpacked(removed: McpServerRecord, remaining: Iterable[McpServerRecord]) -> Path | None:
    """Delete the folder a removed bundle server ran from; returns it, or None when it stays.

    Only a folder directly inside the bundles folder that no remaining server runs from is deleted.
    """
    origin, cwd = removed.registry_origin, removed.config.cwd
    if origin is None or origin.package != "mcpb" or not cwd:
        return None
    folder = Path(cwd).resolve()
    if folder.parent != bundles_folder().resolve() or not folder.is_dir():
        return None
    if any(other.config.cwd and Path(other.config.cwd).resolve() == folder for other in remaining):
        return None
    shutil.rmtree(folder, ignore_errors=True)
    return folder


def unpack(plan: BundlePlan) -> Path:
    """Extract the bundle into ``plan.folder``, which must not exist yet (another install's files are never touched)."""
    parent = plan.folder.parent
    parent.mkdir(parents=True, exist_ok=True)
    if plan.folder.exists():
        raise BundleError(f"{plan.folder} exists already (another install uses it); nothing was unpacked")
    staging = Path(tempfile.mkdtemp(prefix=".unpack-", dir=parent))
    try:
        with zipfile.ZipFile(io.BytesIO(plan.bundle.content)) as archive:
            check_members(archive, plan.bundle.path.name)
            archive.extractall(staging)
        server = plan.bundle.manifest.server
        program = staging / server.entry_point
        if server.type == "binary" and server.entry_point and program.is_file():
            program.chmod(program.stat().st_mode | 0o700)
        staging.rename(plan.folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return plan.folder
