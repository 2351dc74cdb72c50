"""What a server will run, shown to the user before it is trusted, and what changed since.

A server from an import, a deep link or pasted JSON is untrusted until the user confirms
exactly what it starts (stdio) or where it connects (SSE/HTTP). The confirmed launch, the trust
fingerprint, is kept on the record (``trustedLaunch``): the transport, command, arguments,
working folder, environment names and values (secrets by their ``${secret:…}`` reference), the
sandbox profile, URL, header names and OAuth endpoints. A sandbox made looser (off, a new path, a
wider network) counts as a change; a tighter one does not. When any of it changes, the server needs confirming again and
the prompt shows the difference. Every value shown is passed through :func:`visible`, so a line
break in an argument cannot draw a fake row; risky environment keys are flagged and placeholders
filled from the user's environment are named.
"""

from __future__ import annotations

from typing import Any

from elftia_desktop.core.env_risks import env_risk, expansions, path_diff
from elftia_desktop.core.models import McpOAuthConfig, McpServerRecord, McpServerTransport
from elftia_desktop.core.sandbox import describe_sandbox, sandbox_changes
from elftia_desktop.core.secret_detect import secret_kind
from elftia_desktop.core.secrets import is_secret_ref, looks_secret
from elftia_desktop.core.text_rules import visible
from elftia_desktop.platform.sandbox import sandbox_support

_EMPTY: dict[str, Any] = {"env": {}, "headers": [], "oauth": None, "cwd": None, "sandbox": None}
"""What a fingerprint written by an older version (without these keys) confirmed."""


def launch_of(record: McpServerRecord) -> dict[str, Any]:
    """The trust fingerprint: every field that decides what runs or where data goes."""
    config = record.config
    if record.type is McpServerTransport.STDIO:
        return {
            "transport": record.type.value,
            "command": config.command,
            "args": list(config.args),
            "cwd": config.cwd,
            "env": dict(sorted(config.env.items())),
            "sandbox": None if record.sandbox is None else record.sandbox.fingerprint(),
        }
    oauth = config.oauth
    return {
        "transport": record.type.value,
        "url": config.url,
        "headers": sorted(config.headers),
        "oauth": None
        if oauth is None
        else {
            "issuer": oauth.issuer,
            "clientId": oauth.client_id,
            "clientMetadataUrl": oauth.client_metadata_url,
            "grantType": oauth.grant_type,
            "redirectPort": oauth.redirect_port,
        }
        | _identity_provider(oauth),
    }


def _identity_provider(oauth: McpOAuthConfig) -> dict[str, Any]:
    """Where the ID token goes under enterprise-managed authorization (absent otherwise: older fingerprints hold)."""
    assertion = oauth.identity_assertion
    if assertion is None:
        return {}
    return {"idpTokenEndpoint": assertion.idp_token_endpoint, "idpClientId": assertion.idp_client_id}


def describe_launch(record: McpServerRecord) -> list[tuple[str, str]]:
    """Label/value rows for a trust prompt: secret values never shown, control characters escaped."""
    config = record.config
    rows: list[tuple[str, str]] = [("Name", visible(record.name)), ("Transport", record.type.value)]
    if record.type is McpServerTransport.STDIO:
        rows.append(("Command", visible(config.command or "")))
        rows.append(("Arguments", " ".join(_quote(a) for a in config.args) or "(none)"))
        rows.append(("Working folder", visible(config.cwd) if config.cwd else "(the app's folder)"))
        if config.env:
            rows.append(("Environment", ", ".join(_masked(k, v) for k, v in config.env.items())))
        rows += risky_env_rows(config.env)
        rows += describe_sandbox(record.sandbox, sandbox_support())
    else:
        rows.append(("URL", visible(config.url or "")))
        if config.headers:
            rows.append(("Headers", ", ".join(_masked(k, v) for k, v in config.headers.items())))
        if config.oauth is not None:
            rows.append(("Sign-in", f"OAuth ({config.oauth.grant_type})"))
            if config.oauth.identity_assertion is not None:
                rows.append(("Identity provider", visible(config.oauth.identity_assertion.idp_token_endpoint)))
    return rows + expansion_rows(record)


def risky_env_rows(env: dict[str, str]) -> list[tuple[str, str]]:
    """One ``Risky variable`` row per loader or interpreter hook in ``env``; ``PATH`` as a diff."""
    rows = []
    for key, value in env.items():
        what = env_risk(key)
        if what is None:
            continue
        detail = f"{key}: {what}"
        if key.upper() == "PATH" and not is_secret_ref(value):
            detail += f" ({visible(path_diff(value))})"
        rows.append(("Risky variable", detail))
    return rows


def expansion_rows(record: McpServerRecord) -> list[tuple[str, str]]:
    """One ``From your environment`` row per ``${VAR}`` the app fills in when the server starts."""
    config = record.config
    fields = [
        ("the command", config.command or ""),
        ("the working folder", config.cwd or ""),
        ("the URL", config.url or ""),
    ]
    fields += [(f"argument #{i + 1}", a) for i, a in enumerate(config.args)]
    fields += [(f"environment variable {k}", v) for k, v in config.env.items()]
    fields += [(f"header {k}", v) for k, v in config.headers.items()]
    rows = []
    for item in expansions(fields):
        where, variable = visible(item.where), visible(item.variable)
        line = f"{visible(item.placeholder)} in {where} is filled from your variable {variable}"
        if item.where.startswith(("argument", "the command")) and looks_secret(item.variable):
            line += " (it looks secret, so the server will not start with it on its command line)"
        elif item.where in ("the URL",) or item.where.startswith("header"):
            line += " and sent to the server's host"
        rows.append(("From your environment", line))
    return rows


def launch_changes(record: McpServerRecord, now: dict[str, Any] | None = None) -> list[tuple[str, Any, Any]]:
    """``(field, confirmed, now)`` for each launch field changed since the user trusted it.

    Lists and scalars come whole (``args``); the environment comes per variable (``env PYTHONPATH``)
    with secret references shown as ``(secret)`` and control characters escaped. ``now``: the record's
    ``launch_of`` when the caller has it already.
    """
    confirmed = record.trusted_launch or {}
    now = launch_of(record) if now is None else now
    changes: list[tuple[str, Any, Any]] = []
    for key, value in now.items():
        before = confirmed.get(key, _EMPTY.get(key, value))
        if before == value:
            continue
        if key == "sandbox":
            changes += sandbox_changes(before, value)
        elif key == "env" and isinstance(before, dict):
            changes += _env_changes(before, value)
        else:
            changes.append((key, _shown(before), _shown(value)))
    return changes


def _env_changes(before: dict[str, Any], after: dict[str, str]) -> list[tuple[str, Any, Any]]:
    out = []
    for key in sorted(before.keys() | after.keys()):
        old, new = before.get(key), after.get(key)
        if old != new:
            label = f"env {key}" + (" (risky)" if env_risk(key) else "")
            out.append((label, _shown_value(old), _shown_value(new)))
    return out


def _shown_value(value: Any) -> Any:
    if value is None:
        return None
    text = str(value)
    return "(secret)" if is_secret_ref(text) or secret_kind(text) else visible(text)


def _shown(value: Any) -> Any:
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, list):
        return [_shown(v) for v in value]
    return value


def needs_confirmation(record: McpServerRecord, launch: dict[str, Any] | None = None) -> bool:
    """True when the server must not start before the user confirms it (``launch``: its ``launch_of``, if known)."""
    if not record.is_trusted:
        return True
    return record.trusted_launch is not None and bool(launch_changes(record, launch))


def mark_trusted(record: McpServerRecord) -> None:
    """Record that the user confirmed the server as it is now."""
    record.is_trusted = True
    record.trusted_launch = launch_of(record)


def _masked(key: str, value: str) -> str:
    return (
        f"{visible(key)}=(secret)" if is_secret_ref(value) or secret_kind(value) else f"{visible(key)}={visible(value)}"
    )


def _quote(arg: str) -> str:
    shown = visible(arg)
    return f'"{shown}"' if (" " in shown or not shown) else shown
