"""Fixtures for the dependency tests: the asyncio backend, and small real programs to probe."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture
def anyio_backend() -> str:
    """The checker and installer run on asyncio."""
    return "asyncio"


@pytest.fixture
def make_program(tmp_path: Path) -> Callable[[str, str], Path]:
    """Write an executable shell script ``name`` with ``body`` into a fresh bin folder; returns its path."""
    bin_dir = tmp_path / "fake-bin"

    def make(name: str, body: str) -> Path:
        if os.name == "nt":
            pytest.skip("shell-script programs need a POSIX system")
        bin_dir.mkdir(exist_ok=True)
        program = bin_dir / name
        program.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
        program.chmod(program.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        return program

    return make
