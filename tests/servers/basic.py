"""A general test server: echo, slow and crashing tools, logs, elicitation, roots, sampling.

Run: ``python -m tests.servers.basic`` (from the repo root) or ``python tests/servers/basic.py``.
Add ``--transport sse|streamable-http --port N`` to serve over HTTP on 127.0.0.1 (see ``http.py``).
"""

from __future__ import annotations

import asyncio
import os
import sys
import warnings

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning
from pydantic import BaseModel, Field

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
mcp = MCPServer("basic", version="1.0.0")


@mcp.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@mcp.tool()
def add(a: int, b: int) -> dict[str, int]:
    """Add two numbers (structured output)."""
    return {"sum": a + b}


@mcp.tool()
async def slow(seconds: float, ctx: Context) -> str:
    """Sleep, then answer; logs 'slow cancelled' on stderr when cancelled."""
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        print("slow cancelled", file=sys.stderr, flush=True)
        raise
    return f"slept {seconds}"


@mcp.tool()
def fail(reason: str) -> str:
    """A tool error (isError result)."""
    raise ValueError(reason)


@mcp.tool()
def crash(code: int = 7) -> str:
    """Kill the server process at once."""
    print(f"crashing with {code}", file=sys.stderr, flush=True)
    os._exit(code)


@mcp.tool()
def stderr(line: str) -> str:
    """Write one line to stderr."""
    print(line, file=sys.stderr, flush=True)
    return "written"


@mcp.tool()
async def log(message: str, ctx: Context) -> str:
    """Send a notifications/message log to the client."""
    await ctx.info(message)
    return "logged"


class _Name(BaseModel):
    name: str = Field(default="Ada", description="Your name")
    age: int = Field(default=36)


@mcp.tool()
async def ask_name(ctx: Context) -> str:
    """Ask the client for a name (elicitation)."""
    result = await ctx.elicit("What is your name?", _Name)
    if result.action == "accept":
        return f"hello {result.data.name} ({result.data.age})"
    return f"no name: {result.action}"


@mcp.tool()
async def roots(ctx: Context) -> list[str]:
    """The client's roots."""
    listed = await ctx.session.list_roots()
    return [str(root.uri) for root in listed.roots]


@mcp.tool()
async def sample(ctx: Context) -> str:
    """Ask the client to sample (the client should decline)."""
    message = types.SamplingMessage(role="user", content=types.TextContent(type="text", text="hi"))
    try:
        await ctx.session.create_message([message], max_tokens=5)
    except Exception as exc:  # the error the client answered with
        return f"sampling refused: {exc}"
    return "sampled"


@mcp.tool()
def env(name: str) -> str:
    """The value of an environment variable ('' when unset)."""
    return os.environ.get(name, "")


@mcp.tool()
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
