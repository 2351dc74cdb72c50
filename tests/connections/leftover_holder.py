"""Child process for the leftover tests: an app's service that starts one stdio server, then waits to be killed.

Usage: ``python leftover_holder.py RUNTIME_DIR DATA_DIR CONFIG_JSON``
(CONFIG_JSON: the stdio config, with command, args and env). Prints the server's
``READY`` once the server answered (its pid is in the runtime file), then waits.
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


async def main(runtime_dir: Path, data_dir: Path, config: dict[str, object]) -> None:
    """Start the server through the pool and say so."""
    vault = SecretVault(backend=NoKeyring(), fallback_path=data_dir / "secrets.json")
    service = McpService(ServerCatalog(ConfigStore(data_dir / "mcp-config.json"), vault), runtime_dir=runtime_dir)
    server = McpServerInput(name="leftover", config=config, is_trusted=True)
    result = await servers.add(service, server)
    assert result.server is not None, result.error
    test = await service.test(result.server.id)
    assert test.success, test.error
    print("READY", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2]), json.loads(sys.argv[3])))
