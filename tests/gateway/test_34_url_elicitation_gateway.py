"""Issue 34: a URL-mode question of a server behind the gateway reaches the app as a URL-mode question.

The pool's asker carries the address beside the message (``core.url_elicitation``); the gateway
sends it on as ``ElicitRequestURLParams`` (not as a form with the address in its text), so the app
can show the domain and open it on its own click; the answer goes back to the server.
"""

from __future__ import annotations

from pathlib import Path

import mcp_types as types
import pytest
from mcp.client.session import ClientRequestContext

from elftia_desktop.core.approvals import ANSWER_FIELD, Answer
from tests.gateway.gateway_helpers import add_stdio, open_catalog, text_of
from tests.helpers.memory_gateway import memory_gateway

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]


async def test_a_url_question_goes_on_as_one(isolated_data_dir: Path) -> None:
    add_stdio(open_catalog(isolated_data_dir), "linker", "linker")
    asked: list[types.ElicitRequestParams] = []

    async def elicit(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        if isinstance(params, types.ElicitRequestFormParams):  # the gateway's approval of the call: allow once
            return types.ElicitResult(action="accept", content={ANSWER_FIELD: Answer.ONCE.value})
        asked.append(params)
        return types.ElicitResult(action="decline")

    async with memory_gateway(elicitation_callback=elicit) as (session, _):
        answer = await session.call_tool("linker__link_account", {})
    assert text_of(answer) == "link: decline"
    (params,) = asked
    assert isinstance(params, types.ElicitRequestURLParams)
    assert (params.message, params.url) == ("Link your account", "https://example.com/link")
