"""``python -m elftia_desktop.cli``."""

from elftia_desktop.cli import run

run()
