"""The add/edit form's fields as the router's parameters: ``McpServerInput`` JSON for ``mcp:add``, and the
changes for ``mcp:update`` (the other transport's fields cleared)."""

from __future__ import annotations

from typing import Any

from elftia_desktop.core.models import McpServerInput, McpServerRecord
from elftia_desktop.core.trust import needs_confirmation
from elftia_desktop.ui.dialogs.server_form_layout import FormLayout


def form_params(ui: FormLayout, record: McpServerRecord | None, link: McpServerInput | None) -> dict[str, Any]:
    """The form's server in the ``McpServerInput`` JSON shape (for ``router.add``); ``record``: the server
    edited, ``link``: the install link the form was opened from."""
    transport = ui.transport.value()
    config: dict[str, Any]
    values = ui.preset_values  # a preset's {key} placeholders, filled from the values it asked for
    if transport == "stdio":
        args = [values.fill(a) for a in ui.args.items() if values.kept(a)]
        config = {"command": values.fill(ui.command.text().strip()), "args": args, "env": ui.env.mapping()}
        if ui.cwd.text():
            config["cwd"] = ui.cwd.text()
        secret = ui.env.secret_keys()
        sandbox = ui.sandbox.value(values.fill)
    else:
        sandbox = None
        headers = ui.headers.mapping()
        config = {
            "url": values.fill(ui.url.text().strip()),
            "headers": {k: values.fill(v) for k, v in headers.items()},
        }
        secret = ui.headers.secret_keys()
        secret += [k for k, v in headers.items() if k not in secret and values.uses_secret(v)]
        header, oauth = ui.auth.header(), ui.auth.oauth()
        if header is not None:
            config["headers"][header[0]] = header[1]
            secret.append(header[0])
        if oauth is not None:
            config["oauth"] = oauth
    timeout = _timeouts(ui, record)
    if timeout:
        config["timeout"] = timeout
    params: dict[str, Any] = {"name": ui.name.text().strip(), "type": transport, "config": config}
    if sandbox is not None:
        params["sandbox"] = sandbox
    params["scope"] = ui.scope.currentData()
    if params["scope"] == "local":
        params["projectPath"] = ui.project.text()
    if link is not None:
        params["isTrusted"], params["installSource"] = False, "protocol"  # confirmed before it runs
    elif record is None:
        params["isTrusted"] = True  # typed or picked here, seeing what it runs
    if secret:
        params["secretKeys"] = secret
    return params


def form_updates(params: dict[str, Any], record: McpServerRecord | None) -> dict[str, Any]:
    """The changes for ``router.update`` from the form's ``params``: every field, the other transport's cleared."""
    cleared: dict[str, Any] = {
        "command": None,
        "args": [],
        "env": {},
        "cwd": None,
        "url": None,
        "headers": {},
        "timeout": None,
        "oauth": None,
    }
    updates = {k: v for k, v in params.items() if k not in ("config", "secretKeys", "isTrusted")}
    updates["config"] = cleared | params["config"]
    updates.setdefault("projectPath", None)
    updates.setdefault("sandbox", None)
    if record is not None and not needs_confirmation(record):
        updates["isTrusted"] = True  # the user's own edit in the app keeps a trusted server trusted
    return updates


def _timeouts(ui: FormLayout, record: McpServerRecord | None) -> dict[str, float]:
    kept = record.config.timeout.to_json_dict() if record and record.config.timeout else {}
    kept.pop("connect", None)
    kept.pop("call", None)
    for key, spin in (("connect", ui.connect_timeout), ("call", ui.call_timeout)):
        if spin.value() > 0:
            kept[key] = float(spin.value())
    return kept
