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
    "openai": "ebd0686263080a3cc8039f7a30c80950f3905f6e7363233c68b9ea5df2ba64d3",
    "openai --strict": "1a36bc898ba3035b12e5f61a4d31bb7167e7a275ef5dcadade6e8c1a414960ec",
    "openai-responses": "c1b0093d826e1977f209510ac483a8823a1bce8aa63939f393e6e54c891bf749",
    "openai-responses --strict": "7a87f39deb43657f8ed5c34cd344135ebfc32a3234578be7a5fd4b74b79f90a2",
    "anthropic": "c8c7e744454651d10922ce8a229afe5999bcb581e90af2614293715bc2cf4491",
    "gemini": "ab6097ab96cd2449e8ff9dcbc269dff0ab75b89dc3358a3dd698e24f0d213bb6",
    "gemini-json": "1d7565df526d91c402e153d03c7856c309303bd5e058501c907c8b79eb65a8bd",
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
