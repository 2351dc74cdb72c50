"""Where Qt meets asyncio: the service loop thread and the McpRouter."""

# pydantic is imported in full here, before any module of this package imports PySide6:
# shiboken's import hook inspects importing modules (inspect.getsource), which re-enters
# pydantic's lazy module __getattr__ halfway through its first import and fails.
import pydantic.fields  # noqa: F401
import pydantic.types  # noqa: F401

import elftia_desktop.core.models  # noqa: F401
