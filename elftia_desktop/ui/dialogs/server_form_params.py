"""The add/edit form's fields as a typed ``ServerDraft`` (a preset's ``{key}`` placeholders filled in): what
``ServerDraft.check`` turns into the ``McpServerInput`` of ``mcp:add`` or the change of ``mcp:update``."""

from __future__ import annotations

from elftia_desktop.core.models import McpServerInput, McpServerRecord, McpServerScope, McpServerTransport
from elftia_desktop.core.server_draft import ServerDraft
from elftia_desktop.ui.dialogs.server_form_layout import FormLayout


def form_draft(ui: FormLayout, record: McpServerRecord | None, link: McpServerInput | None) -> ServerDraft:
    """The form's server as typed; ``record``: the server edited, ``link``: the install link the form came from.

    Only the chosen transport's fields are in it (the other transport's are cleared when saved).
    """
    transport = McpServerTransport(ui.transport.value())
    scope = McpServerScope(ui.scope.currentData())
    values = ui.preset_values  # a preset's {key} placeholders, filled from the values it asked for
    stdio = transport is McpServerTransport.STDIO
    headers, secret = ({}, ui.env.secret_keys()) if stdio else _headers(ui)
    return ServerDraft(
        name=ui.name.text(),
        transport=transport,
        command=values.fill(ui.command.text().strip()) if stdio else "",
        args=tuple(values.fill(a) for a in ui.args.items() if values.kept(a)) if stdio else (),
        env=ui.env.mapping() if stdio else {},
        cwd=ui.cwd.text() if stdio else "",
        url="" if stdio else values.fill(ui.url.text().strip()),
        headers=headers,
        oauth=None if stdio else ui.auth.oauth(),
        connect_timeout=ui.connect_timeout.value(),
        call_timeout=ui.call_timeout.value(),
        scope=scope,
        project_path=ui.project.text() if scope is McpServerScope.LOCAL else "",
        sandbox=ui.sandbox.value(values.fill) if stdio else None,
        secret_keys=tuple(secret),
        record=record,
        from_link=link is not None,
    )


def _headers(ui: FormLayout) -> tuple[dict[str, str], list[str]]:
    """The headers (placeholders filled, the Authentication header added) and the secret ones."""
    values = ui.preset_values
    typed = ui.headers.mapping()
    headers = {k: values.fill(v) for k, v in typed.items()}
    secret = ui.headers.secret_keys()
    secret += [k for k, v in typed.items() if k not in secret and values.uses_secret(v)]
    header = ui.auth.header()
    if header is not None:
        headers[header[0]] = header[1]
        secret.append(header[0])
    return headers, secret
