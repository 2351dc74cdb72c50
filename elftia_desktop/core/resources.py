"""Finding files of the repo's ``resources/`` folder at run time.

A built wheel carries them as ``elftia_desktop/resources/`` (hatchling ``force-include``), and so
does a PyInstaller bundle; they are read with ``importlib.resources``. An editable / source
checkout has no such package folder, so the repo's top-level ``resources/`` is used instead.
"""

from __future__ import annotations

from importlib.abc import Traversable
from importlib.resources import files
from pathlib import Path

_PACKAGE = "elftia_desktop"
_REPO_RESOURCES = Path(__file__).resolve().parents[2] / "resources"


def resource_path(name: str) -> Traversable | Path:
    """The resource ``name`` (e.g. ``presets.json``): the packaged copy, else the repo's.

    Raises ``FileNotFoundError`` naming both places when neither has it.
    """
    packaged = files(_PACKAGE) / "resources" / name
    if packaged.is_file():
        return packaged
    local = _REPO_RESOURCES / name
    if local.is_file():
        return local
    raise FileNotFoundError(f"resource {name!r} is neither in the package ({packaged}) nor in {local}")


def read_resource_text(name: str) -> str:
    """The text of the resource ``name`` (UTF-8)."""
    return resource_path(name).read_text(encoding="utf-8")
