"""From a registry entry to a server: which package (or remote) fits this machine, the inputs form,
and the launch pinned to the entry's exact version.

``npm`` → ``npx -y pkg@version``, ``pypi`` → ``uvx pkg==version``, ``oci`` → ``docker run -i --rm …
image:tag``, ``nuget`` → ``dnx pkg@version --yes``; a remote → its URL with ``{variables}`` filled and
its headers. ``mcpb`` packages are downloaded and checked first (``install.py``), then planned as a
bundle. Pure functions: what is installed on this machine comes in as ``present``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from elftia_desktop.core.models import McpServerConfig, McpServerInput, McpServerTransport, RegistryOrigin
from elftia_desktop.registry.entry import (
    KNOWN_REGISTRY_TYPES,
    Argument,
    Input,
    KeyValueInput,
    Package,
    RegistryEntry,
    Remote,
)
from elftia_desktop.registry.errors import EntryNotInstallable
from elftia_desktop.registry.form import FieldKind, FormBuilder, FormField, resolve_values

RUNTIME_OF = {"npm": "npx", "pypi": "uvx", "oci": "docker", "nuget": "dnx"}
"""The command each package type is started with."""
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.-]*)\}")
_REMOTE_TYPES = {
    "streamable-http": McpServerTransport.HTTP,
    "http": McpServerTransport.HTTP,
    "sse": McpServerTransport.SSE,
}


@dataclass
class InstallPlan:
    """The chosen way to run an entry, its form, and what is missing on this machine."""

    entry: RegistryEntry
    kind: str
    """``npm``, ``pypi``, ``oci``, ``nuget``, ``mcpb`` or ``remote``."""
    package: Package | None = None
    remote: Remote | None = None
    fields: list[FormField] = field(default_factory=list)
    runtime: str | None = None
    """The command it starts with (``npx`` ...); None for remotes and bundles."""
    runtime_missing: bool = False

    @property
    def version(self) -> str:
        """The exact version that will be installed."""
        return (self.package.version if self.package and self.package.version else None) or self.entry.server.version

    def preview(self, given: Mapping[str, str] | None = None) -> str:
        """The command line or URL, with the values given so far (secrets masked, missing ones as <KEY>)."""
        values = {
            f.key: ("••••" if f.secret else v) for f in self.fields if (v := (given or {}).get(f.key) or f.default)
        }
        if self.remote is not None:
            return _fill(self.remote.url, values, keep_missing=True)
        command, args, _env = self._launch(values, keep_missing=True)
        return " ".join([command, *args])

    def to_input(self, name: str, given: Mapping[str, str]) -> McpServerInput:
        """The untrusted server to add; ``InputsMissing`` names every required input not given."""
        values = resolve_values(self.fields, given)
        secrets = self._secret_keys()
        origin = RegistryOrigin(
            registry=self.entry.source,
            name=self.entry.server.name,
            version=self.version,
            package=self.kind,
            inputs={f.key: values[f.key] for f in self.fields if not f.secret and f.key in values},
        )
        if self.remote is not None:
            transport = _REMOTE_TYPES[self.remote.type]
            headers = {h.name: _fill(h.value or "{" + h.name + "}", values) for h in self.remote.headers}
            config = McpServerConfig(
                url=_fill(self.remote.url, values), headers={k: v for k, v in headers.items() if v}
            )
        else:
            transport = McpServerTransport.STDIO
            command, args, env = self._launch(values, keep_missing=False)
            config = McpServerConfig(command=command, args=args, env=env)
        return McpServerInput(
            name=name,
            type=transport,
            config=config,
            is_trusted=False,
            install_source="registry",
            registry_origin=origin,
            secret_keys=secrets,
        )

    def _secret_keys(self) -> list[str]:
        """Env vars and headers that are secret or hold a secret variable: they go to the keyring."""
        holders: list[KeyValueInput] = [*self.remote.headers] if self.remote else []
        if self.package is not None:
            holders += self.package.environmentVariables
        secret_fields = {f.key for f in self.fields if f.secret}
        return [
            h.name
            for h in holders
            if h.isSecret or h.name in secret_fields or secret_fields & set(_PLACEHOLDER.findall(h.value or ""))
        ]

    def _launch(self, values: Mapping[str, str], *, keep_missing: bool) -> tuple[str, list[str], dict[str, str]]:
        package = self.package
        assert package is not None and self.runtime is not None
        runtime_args = _arguments(package.runtimeArguments, values, keep_missing)
        package_args = _arguments(package.packageArguments, values, keep_missing)
        env = {e.name: v for e in package.environmentVariables if (v := _env_value(e, values, keep_missing))}
        version = self.version
        if self.kind == "npm":
            yes = [] if {"-y", "--yes"} & set(runtime_args) else ["-y"]
            args = [*runtime_args, *yes, f"{package.identifier}@{version}", *package_args]
        elif self.kind == "pypi":
            args = [*runtime_args, f"{package.identifier}=={version}", *package_args]
        elif self.kind == "oci":
            pass_env = [a for name in env for a in ("-e", name)]
            args = ["run", "-i", "--rm", *runtime_args, *pass_env, _image_ref(package, version), *package_args]
        else:
            args = [*runtime_args, f"{package.identifier}@{version}", "--yes", *package_args]
        return self.runtime, args, env


def plan_install(entry: RegistryEntry, present: Mapping[str, bool], *, allow_inactive: bool = False) -> InstallPlan:
    """Choose a package whose runtime is present, else a remote, else a package to install a runtime for."""
    if not entry.installable and not allow_inactive:
        raise EntryNotInstallable(
            f"{entry.server.name} {entry.server.version} is {entry.status.value} in {entry.source}"
            + (f" ({entry.status_message.strip()})" if entry.status_message else "")
            + "; it is not installed unless you ask for it explicitly"
        )
    server = entry.server
    usable, problems = [], []
    for index, package in enumerate(server.packages, 1):
        problem = _package_problem(package)
        if problem:
            problems.append(f"package {index} ({package.identifier}): {problem}")
        else:
            usable.append(package)
    ready = [p for p in usable if p.registryType == "mcpb" or present.get(RUNTIME_OF[p.registryType], False)]
    remotes = [r for r in server.remotes if r.type in _REMOTE_TYPES]
    problems += [f"remote {r.url}: transport {r.type!r} is not supported" for r in server.remotes if r not in remotes]
    if ready:
        return _package_plan(entry, ready[0], missing=False)
    if remotes:
        return _remote_plan(entry, remotes[0])
    if usable:
        return _package_plan(entry, usable[0], missing=True)
    reason = "; ".join(problems) or "it has neither packages nor remotes"
    raise EntryNotInstallable(f"{server.name} {server.version} cannot be installed: {reason}")


def _package_problem(package: Package) -> str | None:
    if package.registryType not in KNOWN_REGISTRY_TYPES:
        known = ", ".join(KNOWN_REGISTRY_TYPES)
        return f"registryType {package.registryType!r} is unknown (this app installs {known} packages)"
    if package.transport.type != "stdio":
        return f"transport {package.transport.type!r} of a local package is not supported (only stdio)"
    if package.registryType == "mcpb" and not package.fileSha256:
        return "an mcpb package needs a fileSha256 to be checked against"
    return None


def _package_plan(entry: RegistryEntry, package: Package, *, missing: bool) -> InstallPlan:
    form = FormBuilder()
    for argument in [*package.runtimeArguments, *package.packageArguments]:
        _argument_fields(form, argument)
    for variable in package.environmentVariables:
        _value_fields(form, variable.name, variable, "env")
    runtime = RUNTIME_OF.get(package.registryType)
    return InstallPlan(
        entry, package.registryType, package, None, form.fields, runtime, missing and runtime is not None
    )


def _remote_plan(entry: RegistryEntry, remote: Remote) -> InstallPlan:
    form = FormBuilder()
    for name in _PLACEHOLDER.findall(remote.url):
        form.from_input(name, remote.variables.get(name) or Input(isRequired=True), "variable")
    for header in remote.headers:
        _value_fields(form, header.name, header, "header")
    return InstallPlan(entry, "remote", None, remote, form.fields)


def _value_fields(form: FormBuilder, key: str, spec: Input, kind: FieldKind) -> None:
    """A fixed value asks for its ``{variables}``; an open one is a field of its own."""
    if spec.value is None:
        form.from_input(key, spec, kind)
        return
    for name in _PLACEHOLDER.findall(spec.value):
        variable = spec.variables.get(name) or Input(isRequired=True, isSecret=spec.isSecret)
        form.from_input(name, variable, "variable")


def _argument_fields(form: FormBuilder, argument: Argument) -> None:
    if argument.value is not None:
        _value_fields(form, _argument_key(argument), argument, "argument")
    elif argument.isSecret:
        raise EntryNotInstallable(
            f"argument {_argument_key(argument)!r} is secret; secrets are kept in the keyring only "
            "as environment variables or headers, never on a command line"
        )
    else:
        form.from_input(_argument_key(argument), argument, "argument")


def _argument_key(argument: Argument) -> str:
    return (argument.name or argument.valueHint or "value").lstrip("-")


def _arguments(arguments: list[Argument], values: Mapping[str, str], keep_missing: bool) -> list[str]:
    out: list[str] = []
    for argument in arguments:
        key = _argument_key(argument)
        if argument.value is not None:
            value: str | None = _fill(argument.value, values, keep_missing=keep_missing)
        else:
            value = values.get(key) or (f"<{key}>" if keep_missing and argument.isRequired else None)
        if argument.type == "named" and argument.name:
            if value is not None:
                out += [argument.name, value] if value != "" else [argument.name]
        elif value is not None:
            out.append(value)
    return out


def _env_value(spec: KeyValueInput, values: Mapping[str, str], keep_missing: bool) -> str | None:
    if spec.value is not None:
        return _fill(spec.value, values, keep_missing=keep_missing)
    return values.get(spec.name) or (f"<{spec.name}>" if keep_missing and spec.isRequired else None)


def _fill(template: str, values: Mapping[str, str], *, keep_missing: bool = False) -> str:
    def one(match: re.Match[str]) -> str:
        """The value given for one placeholder (``<name>`` or empty when missing)."""
        name = match.group(1)
        return values.get(name, f"<{name}>" if keep_missing else "")

    return _PLACEHOLDER.sub(one, template)


def _image_ref(package: Package, version: str) -> str:
    last = package.identifier.rsplit("/", 1)[-1]
    return package.identifier if (":" in last or "@" in last) else f"{package.identifier}:{version}"


def default_server_name(entry: RegistryEntry) -> str:
    """A short name for the record: the title, else the last part of the entry's name."""
    server = entry.server
    return (server.title or server.name.rsplit("/", 1)[-1]).strip()[:64] or server.name
