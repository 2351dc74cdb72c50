"""A test server for trying tools, prompts and resources from the window.

Tools: ``create_order`` (a nested object, an array of objects, an enum, an optional field,
``$defs``/``$ref`` in its schema), ``count`` (slow, reports progress, notices cancellation),
``picture`` (an image), ``sound`` (audio), ``attachments`` (an embedded resource and a
resource link), ``refuse`` (an ``isError`` result). Prompts: ``review`` (two arguments).
Resources: ``memo://readme`` (text), ``memo://logo`` (a PNG), template ``memo://notes/{topic}``.

Run: ``python -m tests.servers.explore`` from the repo root. ``count`` writes ``cancelled at N``
to the file named by its ``marker`` argument when the client cancels it.
"""

from __future__ import annotations

import asyncio
import io
import os
import struct
import sys
import warnings
import wave
import zlib
from pathlib import Path
from typing import Literal

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.utilities.types import Audio, Image
from mcp.shared.exceptions import MCPDeprecationWarning
from pydantic import BaseModel, Field

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
mcp = MCPServer("explore", version="2.1.0")
READ_ONLY = types.ToolAnnotations(read_only_hint=True)
"""These tools only answer (even ``create_order`` just echoes the order): each runs without asking by default."""


def png(width: int = 48, height: int = 32, rgb: tuple[int, int, int] = (79, 107, 237)) -> bytes:
    """A solid-colour PNG with a white diagonal, built by hand (no imaging library)."""
    rows = b""
    for y in range(height):
        row = bytearray(b"\x00")
        for x in range(width):
            row += bytes((255, 255, 255)) if abs(x * height - y * width) < width else bytes(rgb)
        rows += bytes(row)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def wav(seconds: float = 0.2) -> bytes:
    """A short silent WAV file."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(b"\x00\x00" * int(8000 * seconds))
    return buffer.getvalue()


class Address(BaseModel):
    """Where the order goes."""

    street: str = Field(description="Street and number")
    city: str
    postcode: str | None = Field(default=None, description="Optional postcode")


class Customer(BaseModel):
    """Who orders."""

    name: str = Field(min_length=1)
    email: str = Field(json_schema_extra={"format": "email"})
    address: Address


class Item(BaseModel):
    """One line of the order."""

    sku: str = Field(description="Article number")
    quantity: int = Field(default=1, ge=1, le=99)


@mcp.tool(annotations=READ_ONLY)
def create_order(
    customer: Customer,
    items: list[Item],
    priority: Literal["low", "normal", "high"] = "normal",
    gift: bool = False,
    note: str | None = None,
) -> dict[str, object]:
    """Place an order: a nested customer, a list of items, a priority."""
    total = sum(i.quantity for i in items)
    return {
        "customer": customer.name,
        "city": customer.address.city,
        "skus": [i.sku for i in items],
        "units": total,
        "priority": priority,
        "gift": gift,
        "note": note,
    }


@mcp.tool(annotations=READ_ONLY)
async def count(steps: int = 5, delay: float = 0.2, marker: str = "", ctx: Context | None = None) -> str:
    """Count to the given number of steps, one progress notification per step; notices cancellation."""
    assert ctx is not None
    done = 0
    try:
        for done in range(1, steps + 1):
            await asyncio.sleep(delay)
            await ctx.report_progress(done, steps, f"step {done} of {steps}")
    except asyncio.CancelledError:
        if marker:
            # Synchronous on purpose: inside a cancelled scope every await would be cancelled at once.
            # Written beside, then renamed: the test reads the marker as soon as it exists.
            partial = Path(marker).with_suffix(".partial")
            partial.write_text(f"cancelled at {done}", encoding="utf-8")
            partial.replace(marker)
        raise
    return f"counted to {steps}"


@mcp.tool(annotations=READ_ONLY)
def picture() -> Image:
    """A PNG picture (160×100)."""
    return Image(data=png(160, 100), format="png")


@mcp.tool(annotations=READ_ONLY)
def sound() -> Audio:
    """A short WAV."""
    return Audio(data=wav(), format="wav")


@mcp.tool(annotations=READ_ONLY)
def attachments() -> list[types.ContentBlock]:
    """An embedded text resource and a link to a resource."""
    embedded = types.EmbeddedResource(
        type="resource",
        resource=types.TextResourceContents(uri="memo://readme", mime_type="text/plain", text="Read me first."),
    )
    link = types.ResourceLink(type="resource_link", uri="memo://logo", name="logo", mime_type="image/png")
    return [types.TextContent(type="text", text="Two attachments:"), embedded, link]


@mcp.tool(annotations=READ_ONLY)
def refuse(reason: str = "not today") -> str:
    """Always fails (an isError result)."""
    raise ValueError(reason)


@mcp.prompt()
def review(language: str, code: str) -> list[dict[str, object]]:
    """Ask for a code review."""
    return [
        {"role": "user", "content": f"Review this {language} code:\n{code}"},
        {"role": "assistant", "content": "Sure, here is what I notice:"},
    ]


@mcp.resource("memo://readme", mime_type="text/plain")
def readme() -> str:
    """A text resource."""
    return "Read me first.\nSecond line."


@mcp.resource("memo://logo", mime_type="image/png")
def logo() -> bytes:
    """An image resource."""
    return png(24, 24, (30, 160, 90))


@mcp.resource("memo://notes/{topic}", mime_type="text/plain")
def notes(topic: str) -> str:
    """A note per topic (a resource template)."""
    return f"Notes about {topic}."


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _run import run

    run(mcp)
