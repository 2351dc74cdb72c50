"""A general test server: echo, slow and crashing tools, logs, elicitation, roots, sampling.

Run: ``python -m tests.servers.basic`` (from the repo root) or ``python tests/servers/basic.py``.
Add ``--transport sse|streamable-http --port N`` to serve over HTTP on 127.0.0.1 (see ``http.py``).
"""

from __future__ import annotations

import asyncio
import os
import sys
import warnings
from typing import Annotated

import mcp_types as types
from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve, Sample
from mcp.shared.exceptions import MCPDeprecationWarning
from pydantic import BaseModel, Field

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
mcp = MCPServer("basic", version="1.0.0")
READ_ONLY = types.ToolAnnotations(read_only_hint=True)
"""None of these tools changes anything outside the server: each runs without asking by default."""


@mcp.tool(annotations=READ_ONLY)
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@mcp.tool(annotations=READ_ONLY)
def add(a: int, b: int) -> dict[str, int]:
    """Add two numbers (structured output)."""
    return {"sum": a + b}


@mcp.tool(annotations=READ_ONLY)
async def slow(seconds: float, ctx: Context) -> str:
    """Sleep, then answer; logs 'slow cancelled' on stderr when cancelled."""
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        print("slow cancelled", file=sys.stderr, flush=True)
        raise
    return f"slept {seconds}"


@mcp.tool(annotations=READ_ONLY)
def fail(reason: str) -> str:
    """A tool error (isError result)."""
    raise ValueError(reason)


@mcp.tool(annotations=READ_ONLY)
def crash(code: int = 7) -> str:
    """Kill the server process at once."""
    print(f"crashing with {code}", file=sys.stderr, flush=True)
    os._exit(code)


@mcp.tool(annotations=READ_ONLY)
def stderr(line: str) -> str:
    """Write one line to stderr."""
    print(line, file=sys.stderr, flush=True)
    return "written"


@mcp.tool(annotations=READ_ONLY)
async def log(message: str, ctx: Context) -> str:
    """Send a notifications/message log to the client."""
    await ctx.info(message)
    return "logged"


class _Name(BaseModel):
    name: str = Field(default="Ada", description="Your name")
    age: int = Field(default=36)


def _ask_for_name() -> Elicit[_Name]:
    return Elicit("What is your name?", _Name)


def _the_roots() -> ListRoots:
    return ListRoots()


@mcp.tool(annotations=READ_ONLY)
async def ask_name(answer: Annotated[ElicitationResult[_Name], Resolve(_ask_for_name)]) -> str:
    """Ask the client for a name (elicitation: mid-call, or ``input_required`` on 2026-07-28)."""
    if isinstance(answer, AcceptedElicitation):
        return f"hello {answer.data.name} ({answer.data.age})"
    return f"no name: {answer.action}"


@mcp.tool(annotations=READ_ONLY)
async def roots(listed: Annotated[types.ListRootsResult, Resolve(_the_roots)]) -> list[str]:
    """The client's roots (``roots/list``: mid-call, or ``input_required`` on 2026-07-28)."""
    return [str(root.uri) for root in listed.roots]


def _sample_hi() -> Sample:
    return Sample([types.SamplingMessage(role="user", content=types.TextContent(type="text", text="hi"))], max_tokens=5)


@mcp.tool(annotations=READ_ONLY)
async def sample(sampled: Annotated[types.CreateMessageResult, Resolve(_sample_hi)]) -> str:
    """Ask the client to sample (this client declines: the call fails with its reason)."""
    return "sampled"


@mcp.tool(annotations=READ_ONLY)
def env(name: str) -> str:
    """The value of an environment variable ('' when unset)."""
    return os.environ.get(name, "")


@mcp.tool(annotations=READ_ONLY)
def pid() -> int:
    """The server's process id."""
    return os.getpid()


@mcp.prompt()
def greet(name: str) -> str:
    """A greeting prompt."""
    return f"Say hello to {name}"


@mcp.resource("memo://hello")
def hello() -> str:
    """A fixed resource."""
    return "hello"


@mcp.resource("memo://item/{key}")
def item(key: str) -> str:
    """A resource template."""
    return f"item {key}"


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _run import run

    run(mcp)
