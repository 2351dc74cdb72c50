"""The HTTP gateway's token source: one vault read until a reset, whichever process resets it."""

from __future__ import annotations

from pathlib import Path

import pytest
from keyring.backends.fail import Keyring as NoKeyring

from elftia_desktop.core.secrets import SecretVault
from elftia_desktop.gateway.token import HEADER, OWNER, StoredToken, gateway_token, reset_token

pytestmark = pytest.mark.anyio


def _vault(folder: Path) -> SecretVault:
    return SecretVault(NoKeyring(), folder / "secrets.json")  # type: ignore[no-untyped-call]  # keyring untyped


async def test_the_token_read_is_kept_until_a_reset_says_so(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    first = gateway_token(vault)
    stored = StoredToken(vault, tmp_path)
    assert await stored() == first
    # Written behind its back without a reset's stamp: still the token it read (no vault read per request).
    _vault(tmp_path).store(OWNER, "header", HEADER, "written-elsewhere")
    assert await stored() == first
    # A reset by another vault on the same data folder (another process): the next request sees it.
    second = reset_token(_vault(tmp_path), tmp_path)
    assert await stored() == second != first
    third = reset_token(_vault(tmp_path), tmp_path)
    assert await stored() == third


async def test_no_token_yet_is_asked_again_on_the_next_request(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    stored = StoredToken(vault, tmp_path)
    assert await stored() is None
    made = gateway_token(vault)  # first use elsewhere: no reset, no stamp
    assert await stored() == made
