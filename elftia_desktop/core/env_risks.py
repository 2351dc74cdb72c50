"""Environment variables that change what a program loads or runs, and placeholders filled from ours.

A server's ``env`` is part of what it runs: ``LD_PRELOAD`` loads a library into it, ``PYTHONPATH``
runs a ``sitecustomize.py`` from wherever it points, ``NODE_OPTIONS`` can ``--require`` any file.
The trust prompt flags each such key with one line on what it does. ``${VAR}`` placeholders in a
server's fields are filled from the user's own environment when it starts; :func:`expansions`
lists them so the prompt can say which variable fills which field.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

RISKY_ENV: dict[str, str] = {
    "LD_PRELOAD": "loads these libraries into the server and every program it starts (Linux)",
    "LD_LIBRARY_PATH": "makes programs load shared libraries from these folders first (Linux)",
    "LD_AUDIT": "loads an auditing library into every program started (Linux)",
    "GCONV_PATH": "loads character-conversion modules from this folder (Linux, glibc)",
    "DYLD_INSERT_LIBRARIES": "loads these libraries into the server and every program it starts (macOS)",
    "DYLD_LIBRARY_PATH": "makes programs load libraries from these folders first (macOS)",
    "DYLD_FRAMEWORK_PATH": "makes programs load frameworks from these folders first (macOS)",
    "PATH": "decides which program a bare command name runs",
    "PATHEXT": "decides which file extensions Windows runs as programs",
    "COMSPEC": "the shell Windows runs for commands",
    "COR_PROFILER": "loads a profiler DLL into every .NET Framework program (Windows)",
    "CORECLR_PROFILER": "loads a profiler library into every .NET program",
    "DOTNET_STARTUP_HOOKS": "runs these assemblies at the start of every .NET program",
    "NODE_OPTIONS": "adds Node.js options, e.g. --require of any file, to every node process",
    "NODE_PATH": "makes Node.js find modules in these folders",
    "ELECTRON_RUN_AS_NODE": "turns an Electron app into a plain Node.js interpreter",
    "NPM_CONFIG_REGISTRY": "makes npm/npx download packages from this registry",
    "PYTHONPATH": "makes Python import modules (and run sitecustomize.py) from these folders",
    "PYTHONSTARTUP": "a file Python runs at the start of an interactive session",
    "PYTHONHOME": "replaces Python's standard library folder",
    "PYTHONUSERBASE": "makes Python import user packages (and .pth files) from this folder",
    "PIP_INDEX_URL": "makes pip download packages from this index",
    "UV_INDEX_URL": "makes uv/uvx download packages from this index",
    "UV_DEFAULT_INDEX": "makes uv/uvx download packages from this index",
    "PERL5OPT": "adds Perl options (e.g. -M to load a module) to every perl process",
    "PERL5LIB": "makes Perl load modules from these folders first",
    "RUBYOPT": "adds Ruby options (e.g. -r to load a file) to every ruby process",
    "RUBYLIB": "makes Ruby load files from these folders first",
    "JAVA_TOOL_OPTIONS": "adds JVM options (e.g. -javaagent) to every Java program",
    "_JAVA_OPTIONS": "adds JVM options (e.g. -javaagent) to every Java program",
    "JDK_JAVA_OPTIONS": "adds JVM options to every java launcher",
    "CLASSPATH": "makes Java load classes from these places",
    "BASH_ENV": "a file bash runs before every non-interactive script",
    "ENV": "a file sh runs at the start",
    "PROMPT_COMMAND": "a command bash runs before each prompt",
    "GIT_SSH_COMMAND": "the command git runs to reach a remote",
    "SSL_CERT_FILE": "replaces the certificates TLS connections trust",
    "SSL_CERT_DIR": "replaces the certificates TLS connections trust",
    "REQUESTS_CA_BUNDLE": "replaces the certificates Python requests trusts",
    "NODE_EXTRA_CA_CERTS": "adds certificates Node.js trusts for TLS",
    "NODE_TLS_REJECT_UNAUTHORIZED": "with 0, Node.js accepts any TLS certificate",
    "HTTP_PROXY": "sends the server's HTTP traffic through this proxy",
    "HTTPS_PROXY": "sends the server's HTTPS traffic through this proxy",
    "ALL_PROXY": "sends the server's traffic through this proxy",
}
"""Variable (upper case) -> one line on what it does."""

RISKY_PREFIXES = {"DYLD_": "changes how macOS loads libraries", "LD_": "changes how Linux loads libraries"}
PLACEHOLDER = re.compile(r"\$\{([^}]+)\}")


def env_risk(name: str) -> str | None:
    """What a risky variable does, or None for an ordinary one."""
    upper = name.upper()
    if upper in RISKY_ENV:
        return RISKY_ENV[upper]
    return next((what for prefix, what in RISKY_PREFIXES.items() if upper.startswith(prefix)), None)


def path_diff(value: str, current: str | None = None) -> str:
    """A server's ``PATH`` against the user's: the folders it adds (``+``) and drops (``-``)."""
    mine = (os.environ.get("PATH", "") if current is None else current).split(os.pathsep)
    theirs = value.split(os.pathsep)
    added = [f"+ {p}" for p in theirs if p not in mine]
    dropped = [f"- {p}" for p in mine if p and p not in theirs]
    first = theirs[0] if theirs else ""
    lead = [f"searched first: {first}"] if first and first not in mine[:1] else []
    return "; ".join(lead + added + dropped) or "the same as yours"


@dataclass(frozen=True)
class Expansion:
    """One ``${VAR}`` that is filled from the user's environment when the server starts."""

    where: str
    """The field: ``argument #2``, ``the URL``, ``header Authorization`` ..."""
    placeholder: str
    """As written: ``${GITHUB_TOKEN}``."""
    variable: str
    """The environment variable that fills it (``userHome`` fills from the home folder)."""


def expansions(fields: list[tuple[str, str]]) -> list[Expansion]:
    """The placeholders in ``(where, text)`` fields that our environment fills (not ``${secret:…}``)."""
    found = []
    for where, text in fields:
        for match in PLACEHOLDER.finditer(text):
            body = match.group(1)
            if body.startswith(("secret:", "input:")):
                continue
            variable = "HOME" if body == "userHome" else body.removeprefix("env:").partition(":-")[0]
            found.append(Expansion(where, match.group(0), variable))
    return found
