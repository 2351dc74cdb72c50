"""Child process for the orphan test: connects N lingering stdio servers, prints their pids, waits.

Usage: ``python orphan_child.py RUNTIME_DIR DATA_DIR N``.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from keyring.backends.fail import Keyring as NoKeyring

from elftia_desktop.application import servers
from elftia_desktop.connections.service import McpService
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.models import McpServerInput
from elftia_desktop.core.secrets import SecretVault

SERVERS = Path(__file__).resolve().parents[1] / "servers"


async def main(runtime_dir: Path, data_dir: Path, count: int) -> None:
    vault = SecretVault(backend=NoKeyring(), fallback_path=data_dir / "secrets.json")
    service = McpService(ServerCatalog(ConfigStore(data_dir / "mcp-config.json"), vault), runtime_dir=runtime_dir)
    pids = []
    for index in range(count):
        server = McpServerInput(
            name=f"orphan {index}",
            config={"command": sys.executable, "args": [str(SERVERS / "basic.py"), "--linger"]},
            is_trusted=True,
        )
        result = await servers.add(service, server)
        assert result.server is not None, result.error
        response = await service.call_tool(result.server.id, "pid", {})
        pids.append(response.structured_content["result"])  # type: ignore[index]
    print(json.dumps(pids), flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])))
