"""The skills test server's files, copied where a test may change them, and the URIs it serves."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.servers.serve_http import SERVERS_DIR

GIT = "skill://git-workflow/SKILL.md"
REFUNDS = "skill://acme/billing/refunds/SKILL.md"
EMAIL = "skill://acme/billing/refunds/examples/email.md"


def copy_skill_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of ``tests/servers/skill_files`` that the skills server serves for this test; the copy."""
    folder = tmp_path / "skills"
    shutil.copytree(SERVERS_DIR / "skill_files", folder)
    monkeypatch.setenv("ELFTIA_TEST_SKILLS_DIR", str(folder))
    return folder
