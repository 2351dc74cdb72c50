"""A low-level MCP server whose tool input schemas are whole pydantic models (issue 13).

Each tool's ``inputSchema`` is a model's ``model_json_schema()`` (for the recursive ones a root
``$ref`` into ``$defs``). The tools validate their arguments with the same model and answer with
what they received as JSON (an ``isError`` result with pydantic's message when the arguments do
not match), so a test sees exactly what reached the server.

* ``tree``: a recursive tree (``name``, ``size``, ``children: list[Tree]``); answers with the
  model and its node count and depth.
* ``evaluate``: a recursive expression (``op``, ``left``, ``right``; each side a number or an
  expression); answers with the model and its value.
* ``upload``: parameter names Gemini does not accept (``file-path``, ``2fa code``, ``$meta``).

pydantic puts no ``type`` at such a root; the SDK's wire types require ``"type": "object"`` there,
so ``tools/list`` adds exactly that in front (the form such servers send); the rest is pydantic's.
``TOOLS`` holds the schemas without it (the form saved tool lists and other SDKs carry).

Run: ``python tests/servers/recursive.py`` (stdio).
"""

from __future__ import annotations

import json
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from pydantic import BaseModel, ConfigDict, Field, ValidationError


class Tree(BaseModel):
    """A tree of named nodes."""

    model_config = ConfigDict(extra="forbid")
    name: str
    size: int = 0
    children: list[Tree] = Field(default_factory=list)


class Expr(BaseModel):
    """An arithmetic expression: each side a number or another expression."""

    model_config = ConfigDict(extra="forbid")
    op: Literal["+", "-", "*"]
    left: float | Expr
    right: float | Expr


class Upload(BaseModel):
    """Parameter names that are not identifiers."""

    model_config = ConfigDict(extra="forbid", populate_by_name=False)
    file_path: str = Field(alias="file-path", description="Where to upload.")
    code: str | None = Field(default=None, alias="2fa code")
    meta: dict[str, str] | None = Field(default=None, alias="$meta")


def _count(tree: Tree) -> tuple[int, int]:
    counts = [_count(child) for child in tree.children]
    return 1 + sum(c for c, _ in counts), 1 + max((d for _, d in counts), default=0)


def _value(side: float | Expr) -> float:
    if not isinstance(side, Expr):
        return side
    left, right = _value(side.left), _value(side.right)
    return left + right if side.op == "+" else left - right if side.op == "-" else left * right


def _tree(args: dict[str, Any]) -> dict[str, Any]:
    tree = Tree.model_validate(args)
    nodes, depth = _count(tree)
    return {"received": tree.model_dump(), "nodes": nodes, "depth": depth}


def _evaluate(args: dict[str, Any]) -> dict[str, Any]:
    expr = Expr.model_validate(args)
    return {"received": expr.model_dump(), "value": _value(expr)}


def _upload(args: dict[str, Any]) -> dict[str, Any]:
    return {"received": Upload.model_validate(args).model_dump(by_alias=True)}


TOOLS: dict[str, tuple[str, dict[str, Any], Any]] = {
    "tree": ("Count the nodes of a tree.", Tree.model_json_schema(), _tree),
    "evaluate": ("Evaluate an expression.", Expr.model_json_schema(), _evaluate),
    "upload": ("Upload a file.", Upload.model_json_schema(by_alias=True), _upload),
}
"""name -> (description, pydantic's input schema, handler)."""


async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    """Every tool, its input schema exactly as pydantic generates it."""
    tools = [
        types.Tool(name=name, description=text, input_schema={"type": "object", **schema})
        for name, (text, schema, _) in TOOLS.items()
    ]
    return types.ListToolsResult(tools=tools)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    """Validate the arguments with the tool's model; answer with what arrived (or why it was rejected)."""
    entry = TOOLS.get(params.name)
    if entry is None:
        return types.CallToolResult(content=[types.TextContent(type="text", text="no such tool")], is_error=True)
    try:
        text, failed = json.dumps(entry[2](params.arguments or {})), False
    except ValidationError as exc:
        text, failed = f"rejected {json.dumps(params.arguments)}: {exc}", True
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=failed)


mcp: Server[Any] = Server("recursive", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    """Serve over stdio."""
    async with stdio_server() as (read, write):
        await mcp.run(read, write, mcp.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
