"""The test servers of tests/servers in the test's own process, through the pool's transport seam.

    with in_memory_servers() as opened:      # or the fixture ``memory_servers``
        sid = await add_server(service, stdio_input("alpha", "basic"))
        ...                                  # the pool talks to basic.py's MCPServer, no process
        assert opened == ["basic"]

A stdio record whose command line is ``server_command(NAME)`` (``python tests/servers/NAME.py``,
optionally ``--transport stdio``) or ``python -m tests.servers.NAME`` (``live_router.server_input``)
and that sets no environment of its own, or only NAME's ``STEERING`` variables, opens NAME's
``mcp`` over the SDK's in-memory streams (``connections.transports.set_transport_factory``). Each
open loads the module afresh, so no state is shared between connections, as with processes; the
copy finds the record's variables in its module-level ``ENV``, as a process in its environment.
Every other record opens its real transport, and so do ``PROCESS_SERVERS``. A test about the process (a crash, stderr,
signals) in a module that uses the fixture is marked ``real_process``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import itertools
import os
import sys
from collections.abc import AsyncIterator, Collection, Iterator, Mapping
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

from mcp.client._memory import InMemoryTransport

from elftia_desktop.connections.transports import Transport, set_transport_factory
from elftia_desktop.core.models import McpServerRecord, McpServerTransport
from tests.servers.serve_http import SERVERS_DIR

_loads = itertools.count()
MODULE_PREFIX = "tests.servers."
PROCESS_SERVERS = frozenset({"exit3", "flush_on_eof", "spin_on_eof", "hang_init"})
"""Servers whose point is what their process does (exit, ignore EOF, never answer): always real."""
STEERING = {
    "rug_pull": frozenset({"RUG_STATE"}),
    "set_order": frozenset({"ORDER_STATE"}),
    "many_tools": frozenset({"MANY_TOOLS", "MANY_TOOLS_PREFIX"}),
}
"""Variables that only steer a test server (read through its ``ENV``): a record that sets no others opens in memory."""


def load_server(name: str, env: Mapping[str, str] | None = None) -> Any:
    """A fresh copy of ``tests/servers/NAME.py``'s ``mcp`` (its ``__main__`` block does not run).

    The copy's ``ENV`` is this process's environment with ``env`` over it, set before its code runs.
    """
    path = SERVERS_DIR / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"tests.servers._in_memory_{name}_{next(_loads)}", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    module.ENV = {**os.environ, **(env or {})}
    sys.modules[spec.name] = module  # pydantic resolves the tools' annotations through it, also later
    spec.loader.exec_module(module)
    return module.mcp


def server_name_of(record: McpServerRecord) -> str | None:
    """NAME when ``record`` runs ``tests/servers/NAME.py`` over stdio, with no environment but NAME's ``STEERING``."""
    config = record.config
    if record.type is not McpServerTransport.STDIO or config.command != sys.executable:
        return None
    name = _script_name(list(config.args))
    return name if name is not None and set(config.env) <= STEERING.get(name, frozenset()) else None


def _script_name(args: list[str]) -> str | None:
    """NAME of ``tests/servers/NAME.py`` (or ``-m tests.servers.NAME``) in a server's arguments."""
    if args[:1] == ["-m"] and len(args) == 2 and args[1].startswith(MODULE_PREFIX):  # live_router's server_input
        name = args[1].removeprefix(MODULE_PREFIX)
        return name if (SERVERS_DIR / f"{name}.py").is_file() else None
    if not args or args[1:] not in ([], ["--transport", "stdio"]):
        return None
    path = Path(args[0])
    return path.stem if path.parent == SERVERS_DIR and path.suffix == ".py" else None


@contextlib.asynccontextmanager
async def _open(name: str, env: Mapping[str, str]) -> AsyncIterator[Transport]:
    """NAME's server (steered by ``env``) on the SDK's in-memory transport, as the pool's ``Transport``."""
    async with InMemoryTransport(load_server(name, env)) as (read, write):
        yield Transport(read, write)


@contextlib.contextmanager
def in_memory_servers(names: Collection[str] | None = None) -> Iterator[list[str]]:
    """Route the test servers (or only ``names``) in memory for the block; yields the names opened so far."""
    opened: list[str] = []

    def factory(record: McpServerRecord) -> AbstractAsyncContextManager[Transport] | None:
        """In memory when the record is one of the wanted test servers."""
        name = server_name_of(record)
        if name is None or name in PROCESS_SERVERS or (names is not None and name not in names):
            return None
        opened.append(name)
        return _open(name, record.config.env)

    previous = set_transport_factory(factory)
    try:
        yield opened
    finally:
        set_transport_factory(previous)
