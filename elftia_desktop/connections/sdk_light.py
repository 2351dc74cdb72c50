"""Importing the SDK's client modules without its package ``__init__`` files, for a fast CLI start.

``import mcp.client.session`` runs ``mcp/__init__.py`` and ``mcp/client/__init__.py`` first, and
those import the whole server side of the SDK (``mcp.server``, ``MCPServer``, the in-memory
transport): about a third of the SDK's import time, for nothing a client needs.
:func:`defer_sdk_package_inits` registers both packages unexecuted, so their submodules import on
their own; the first time anything asks either package for a name it does not have yet
(``from mcp import Client``), its real ``__init__`` runs, so every name is still there.

Only the CLI calls it, before anything imported ``mcp``; the app and the tests import the SDK as usual.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from types import ModuleType
from typing import Any

PACKAGES = ("mcp", "mcp.client")
_lock = threading.RLock()


def defer_sdk_package_inits() -> bool:
    """Register ``mcp`` and ``mcp.client`` with their ``__init__`` deferred; False when ``mcp`` is imported already."""
    with _lock:
        if "mcp" in sys.modules:
            return False
        for name in PACKAGES:
            spec = importlib.util.find_spec(name)
            if spec is None or spec.loader is None:
                return False
            module = importlib.util.module_from_spec(spec)
            module.__dict__["__getattr__"] = _loader_for(module)
            sys.modules[name] = module
            parent, _, child = name.rpartition(".")
            if parent:
                setattr(sys.modules[parent], child, module)
        return True


def _loader_for(module: ModuleType) -> Any:
    def load_then_get(attr: str) -> Any:
        """Import the module's deferred parts on first use, then return ``attr``."""
        with _lock:
            if module.__dict__.pop("__getattr__", None) is not None:
                assert module.__spec__ is not None and module.__spec__.loader is not None
                module.__spec__.loader.exec_module(module)  # the real __init__, in the same module object
        try:
            return module.__dict__[attr]
        except KeyError:
            raise AttributeError(f"module {module.__name__!r} has no attribute {attr!r}") from None

    return load_then_get
