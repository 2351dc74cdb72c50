"""Inlining ``$ref`` with a guard against recursion and blow-up.

Local references only (``#``, ``#/$defs/X``, ``#/definitions/X`` or any JSON pointer into the
root); a reference that cannot be resolved (remote, broken) becomes an unconstrained schema and is
noted. A reference that leads back into itself (a recursive model) is either kept as a
``#/$defs/...`` reference beside a ``$defs`` entry (for providers that take real JSON Schema),
or, for Gemini's OpenAPI-subset ``parameters`` (no references), unrolled to
:data:`RECURSION_DEPTH` levels of the recursive model and cut off below with a placeholder; one
note per reference says at which depth and where.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from elftia_desktop.tools.notes import NoteLog, join_path

MAX_INLINED_NODES = 5000
"""Inlining budget per tool: a schema that would grow beyond it keeps references instead."""
MAX_DEPTH = 48
"""Deeper nesting than this is cut off (keeps recursion in Python bounded for any input)."""
RECURSION_DEPTH = 3
"""Without references, a recursive model is inlined this many levels deep (the root model counts)."""

_VALUE_KEYS = frozenset({"default", "enum", "const", "examples", "example"})
_CONTAINERS = (dict, list)

Placeholder = Callable[[dict[str, Any]], dict[str, Any]]


def copy_json(value: Any) -> Any:
    """A copy of a JSON value (dicts and lists copied, scalars shared)."""
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    return value


def resolve_pointer(root: Any, ref: str) -> Any:
    """The subschema ``ref`` points to inside ``root``, or None."""
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    pointer = unquote(ref[1:])
    if pointer in ("", "/"):
        return root
    if not pointer.startswith("/"):
        return None
    node = root
    for raw in pointer[1:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def def_name(ref: str) -> str:
    """A ``$defs`` key for a reference: its last pointer segment, made safe."""
    tail = ref.rsplit("/", 1)[-1] if "/" in ref else "Root"
    return "".join(c if c.isalnum() or c in "_-." else "_" for c in unquote(tail)) or "Root"


class RefInliner:
    """Inlines the references of one root schema; see the module docstring.

    Without ``placeholder`` recursive references are kept, their targets in ``self.defs`` (JSON
    Schema providers); with one, ``placeholder(target)`` stands in for the level below
    :data:`RECURSION_DEPTH` (Gemini ``parameters``). ``within`` names the reference the root
    itself was resolved from (a root ``$ref``), so that its recursion counts from the root.
    """

    def __init__(
        self, root: dict[str, Any], log: NoteLog, placeholder: Placeholder | None = None, within: str | None = None
    ) -> None:
        self.root = root
        self.log = log
        self.placeholder = placeholder
        self.defs: dict[str, Any] = {}
        self._def_names: dict[str, str] = {}
        self._budget = MAX_INLINED_NODES
        self._start: tuple[str, ...] = (within,) if within else ()
        self._cuts: dict[str, list[str]] = {}

    def run(self, node: Any) -> Any:
        """``node`` with every resolvable reference inlined (a new tree)."""
        result = self._walk(node, "", self._start, 0)
        self._fill_defs()
        self._note_cuts()
        return result

    def _walk(self, node: Any, path: str, stack: tuple[str, ...], depth: int) -> Any:
        self._budget -= 1
        if depth > MAX_DEPTH:
            self.log.add(path, "cut", f"nested deeper than {MAX_DEPTH} levels; the rest is left unconstrained")
            return {}
        if isinstance(node, list):
            return self._walk_list(node, path, stack, depth)
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str):
            return self._inline(node, ref, path, stack, depth)
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in ("$defs", "definitions"):
                continue  # inlined where used
            if key in _VALUE_KEYS:
                out[key] = copy_json(value)  # data, not schemas: never look for references inside
            elif depth < MAX_DEPTH and not isinstance(value, _CONTAINERS):
                self._budget -= 1  # a scalar: what _walk would do, without building its path
                out[key] = value
            elif key in ("properties", "patternProperties", "$defs") and isinstance(value, dict):
                where = join_path(path, key)
                out[key] = {k: self._walk(v, f"{where}.{k}", stack, depth + 1) for k, v in value.items()}
            else:
                out[key] = self._walk(value, join_path(path, key), stack, depth + 1)
        return out

    def _walk_list(self, node: list[Any], path: str, stack: tuple[str, ...], depth: int) -> list[Any]:
        out = []
        for i, value in enumerate(node):
            if depth < MAX_DEPTH and not isinstance(value, _CONTAINERS):
                self._budget -= 1
                out.append(value)
            else:
                out.append(self._walk(value, f"{path}[{i}]", stack, depth + 1))
        return out

    def _inline(self, node: dict[str, Any], ref: str, path: str, stack: tuple[str, ...], depth: int) -> Any:
        target = resolve_pointer(self.root, ref)
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        if not isinstance(target, dict | bool):
            self.log.add(
                join_path(path, "$ref"), "dropped", f"reference {ref!r} cannot be resolved; left unconstrained"
            )
            return self._walk(siblings, path, stack, depth)
        if isinstance(target, bool):
            target = {}
        if self._budget <= 0 or (ref in stack and (self.placeholder is None or stack.count(ref) >= RECURSION_DEPTH)):
            return self._recursive(ref, target, siblings, path, stack, depth)
        inlined = self._walk(target, path, (*stack, ref), depth + 1)
        if not siblings:
            return inlined
        merged = dict(inlined) if isinstance(inlined, dict) else {}
        merged.update(self._walk(siblings, path, stack, depth))  # the referring schema's own keys win
        return merged

    def _recursive(
        self, ref: str, target: dict[str, Any], siblings: dict[str, Any], path: str, stack: tuple[str, ...], depth: int
    ) -> Any:
        if self.placeholder is not None:
            if ref in stack:
                self._cuts.setdefault(ref, []).append(path)
            else:
                self.log.add(path, "cut", f"reference {ref!r} not inlined: the schema would grow beyond "
                             f"{MAX_INLINED_NODES} nodes; sent as an object without properties")  # fmt: skip
            stub = self.placeholder(target)
            kept = {k: v for k, v in siblings.items() if k in ("description", "title")}
            return {**stub, **kept}
        name = self._def_names.setdefault(ref, self._free_def_name(def_name(ref)))
        out: dict[str, Any] = {"$ref": f"#/$defs/{name}"}
        for key in ("description", "default"):
            if key in siblings:
                out[key] = siblings[key]
        return out

    def _note_cuts(self) -> None:
        for ref, paths in self._cuts.items():
            others = f" and at {len(paths) - 1} other places" if len(paths) > 1 else ""
            below = f"level {RECURSION_DEPTH + 1} is sent as a JSON-encoded string (decoded before the call)"
            self.log.add(paths[0], "cut", f"recursive reference {ref!r} inlined {RECURSION_DEPTH} levels deep (the "
                         f"API takes no references), cut here{others}: {below}; its structure is lost")  # fmt: skip

    def _free_def_name(self, base: str) -> str:
        used = set(self._def_names.values())
        name, n = base, 2
        while name in used:
            name, n = f"{base}{n}", n + 1
        return name

    def _fill_defs(self) -> None:
        done: set[str] = set()
        while len(done) < len(self._def_names):
            for ref, name in list(self._def_names.items()):
                if ref in done:
                    continue
                done.add(ref)
                self._budget = max(self._budget, MAX_INLINED_NODES // 4)
                self.defs[name] = self._walk(resolve_pointer(self.root, ref), f"$defs.{name}", (ref,), 1)
