"""The converters' whole output on the captured corpus, pinned by digest.

Speed work on the provider formats must not change a byte of what they send, map back or note:
each provider mode's ``Conversion.to_json()`` (payload, name map, argument map, skipped tools,
notes) over every tool list in ``tests/tools/data`` is hashed and compared with the digest of the
converters as they were when it was recorded. A change that is meant to alter the output updates
:data:`DIGESTS` (run this module as a script to print the new ones) and says why in its commit.
"""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from elftia_desktop.tools.formats.openai import convert_mcp_tools_to_openai
from elftia_desktop.tools.loader import convert_tools

DATA = Path(__file__).parent / "data"
DIGESTS = {
    "openai": "1e31752379e7ef64d0d5a495af606a202b99ff6aeb57380a720d426413ce1987",
    "openai --strict": "3b7785855efc9ab26a403ebe55ebecdfdae7df89dfb5f5a468c3683e209384c2",
    "openai-responses": "d1ba9ea2b0c00e6e3fc4f8ca3285456b564e785a585c6db3ba4abc97d216b1df",
    "openai-responses --strict": "759f7a08a727f6df87b13a5a63801e7b700b9c22440bf37eeaab3013d8a2d27c",
    "anthropic": "fe55984d89810c2bac4183bf9e67649fa3fe95a9d7cbd4faa55df1401cc44e6f",
    "gemini": "620d091097496b99ac65942b1f501062e98f17581bd9f35ce5f711c25f08f156",
    "gemini-json": "56813471cd77010a4d971428746e29e93496e912b51f00e94f380a992df63e86",
}
"""sha256 of each mode's output on the corpus (recorded with the converters of main 41dae0e)."""


def corpus() -> list[dict[str, Any]]:
    """Every tool of every list in ``tests/tools/data``, names made unique across lists."""
    tools = []
    for path in sorted(DATA.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        tools.extend({**t, "name": f"{path.stem}__{t['name']}"} for t in data["tools"])
    return tools


def digest(tools: list[dict[str, Any]], mode: str) -> str:
    """The sha256 of one mode's whole output for ``tools`` (all of them, no request limit)."""
    fmt, strict = mode.removesuffix(" --strict"), mode.endswith(" --strict")
    if fmt.startswith("openai"):
        conversion = convert_mcp_tools_to_openai(tools, strict=strict, responses=fmt != "openai", limit=len(tools))
    else:
        conversion = convert_tools(tools, fmt)
    text = json.dumps(conversion.to_json(), ensure_ascii=False, default=repr)
    notes = json.dumps([n.to_json() for n in conversion.notes], ensure_ascii=False)
    return hashlib.sha256(f"{text}\n{notes}".encode()).hexdigest()


@pytest.mark.parametrize("mode", DIGESTS)
def test_output_is_unchanged(mode: str) -> None:
    tools = corpus()
    before = copy.deepcopy(tools)
    assert digest(tools, mode) == DIGESTS[mode]
    assert tools == before  # converters are pure


if __name__ == "__main__":
    everything = corpus()
    for name in DIGESTS:
        print(f'    "{name}": "{digest(everything, name)}",')
