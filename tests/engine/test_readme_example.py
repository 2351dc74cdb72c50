"""The README's engine example runs as written: it loads a built-in server, calls a tool and leaves nothing running."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MARKER = "<!-- engine-example:"


def readme_example() -> str:
    """The python block that follows the engine-example marker in README.md."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    after = text.split(MARKER, 1)[1]
    return after.split("```python\n", 1)[1].split("```", 1)[0]


def test_the_readme_engine_example_runs(tmp_path: Path) -> None:
    env = os.environ | {"ELFTIA_DATA_DIR": str(tmp_path)}
    run = subprocess.run(
        [sys.executable, "-c", readme_example()], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    names, rest = run.stdout.split("\n", 1)
    answer, error = rest.rsplit("\n", 2)[:2]
    assert "'clock__get_current_time'" in names
    assert json.loads(answer)["utc_offset"] == "+09:00"
    assert error.startswith("Error: tool clock__get_current_time reported an error")
    assert "unknown time zone 'Mars/Olympus'" in error
    assert not list((tmp_path / "runtime").glob("mcp-servers-*.json"))  # every server closed
