"""The hook every SDK OAuth provider of ours carries: a failure inside the flow is recorded on the sign-in gate.

The transports only log what goes wrong inside an ``httpx2.Auth`` flow; the gate keeps it, so the
error a person sees says why the sign-in failed. A provider configured by discovery alone lets a 401
without a ``WWW-Authenticate`` challenge stand (a missing key or header is not a sign-in).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING

import httpx2

if TYPE_CHECKING:
    from elftia_desktop.connections.oauth_gate import SignInGate


class FlowHooks:
    """Mixed into every SDK provider: a failure inside the flow is recorded on the gate."""

    _gate: SignInGate
    _extra_scopes: str | None = None
    _challenge_only = False
    """Configured by discovery alone: a 401 without a ``WWW-Authenticate`` challenge is not a sign-in."""

    async def _auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        flow = super()._auth_flow(request)  # type: ignore[misc]
        try:
            outgoing = await flow.__anext__()
            while True:
                response = yield outgoing
                if self._challenge_only and response.status_code == 401 and "www-authenticate" not in response.headers:
                    return  # no challenge: the 401 stands (a key or header is missing, not a sign-in)
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        except Exception as exc:
            self._gate.record(exc)
            raise
        finally:
            await flow.aclose()
