"""A real MCP server whose tools carry the hard schema cases (pydantic ``$defs``, recursion, unions ...).

Run: ``python tests/tools/schema_server.py`` (stdio). The tools answer with their arguments as
JSON, so a test can see what reached the server.
"""

from __future__ import annotations

import enum
import json
import warnings
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning
from pydantic import BaseModel, Field

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
mcp = MCPServer("schemas", version="1.0.0")


class Color(enum.Enum):
    """A colour."""

    RED = "red"
    GREEN = "green"


class Priority(enum.IntEnum):
    """A numeric enum."""

    LOW = 1
    HIGH = 2


class TreeNode(BaseModel):
    """A recursive model."""

    label: str
    children: list[TreeNode] = Field(default_factory=list)


class Cat(BaseModel):
    """One branch of a discriminated union."""

    kind: Literal["cat"]
    lives: int = Field(ge=0, lt=10)


class Dog(BaseModel):
    """The other branch."""

    kind: Literal["dog"]
    good: bool = True


class Address(BaseModel):
    """A nested model used twice (a shared $defs entry)."""

    street: str
    city: str | None = None


@mcp.tool()
def tree(root: TreeNode, depth_limit: int | None = None) -> str:
    """Walk a tree (recursive $defs)."""
    return json.dumps({"root": root.model_dump(), "depth_limit": depth_limit})


@mcp.tool()
def pets(pet: Annotated[Cat | Dog, Field(discriminator="kind")], owner: Address, backup: Address | None = None) -> str:
    """A discriminated union, a shared model and an Optional model."""
    return json.dumps({"pet": pet.model_dump(), "owner": owner.model_dump(), "backup": backup and backup.model_dump()})


@mcp.tool()
def shapes(
    color: Color,
    priority: Priority = Priority.LOW,
    labels: dict[str, int] | None = None,
    point: tuple[int, int, str] = (0, 0, "origin"),
    mode: Literal["fast", "slow"] = "fast",
    note: str | None = None,
) -> str:
    """Enums, a dict map, a tuple, a Literal and an Optional string."""
    return json.dumps({"color": color.value, "priority": int(priority), "labels": labels, "point": point,
                       "mode": mode, "note": note})  # fmt: skip


@mcp.tool(name="files.read v2")
def dotted(path: str) -> str:
    """A name with a dot and a space."""
    return path


@mcp.tool(name="überprüfe_daten")
def unicode_name(value: str) -> str:
    """A name with unicode."""
    return value


@mcp.tool(name="x" * 40 + "_really_long_tool_name_" + "y" * 37)
def long_name(value: str) -> str:
    """A 100-character name."""
    return value


@mcp.tool()
def echo_args(data: dict[str, Any] | None = None, count: int | None = None) -> str:
    """Answers with exactly the arguments it got (to see nulls stripped)."""
    return json.dumps({"data": data, "count": count})


if __name__ == "__main__":
    mcp.run()
