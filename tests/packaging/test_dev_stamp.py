"""Issue 15: ``dev.py`` runs pip only when pyproject.toml changed or a command needs a missing extra."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def dev(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[ModuleType, list[list[str]]]:
    """``dev.py`` loaded on its own, pointed at a scratch checkout whose pip calls are recorded."""
    spec = importlib.util.spec_from_file_location("dev_under_test", ROOT / "dev.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python"
    python.write_text("")  # exists: no venv is created
    calls: list[list[str]] = []

    def record(*command: object, env: object = None) -> int:
        calls.append([str(c) for c in command])
        return 0

    monkeypatch.setattr(module, "ROOT", tmp_path)
    monkeypatch.setattr(module, "VENV", venv)
    monkeypatch.setattr(module, "PYTHON", python)
    monkeypatch.setattr(module, "run", record)
    return module, calls


def installs(calls: list[list[str]]) -> list[str]:
    return [c[-1] for c in calls if c[-2:-1] == ["-e"]]


def test_a_test_venv_serves_run_without_pip(dev: tuple[ModuleType, list[list[str]]]) -> None:
    module, calls = dev
    module.ensure_venv("test")
    assert installs(calls) == [".[test]"]
    calls.clear()
    module.ensure_venv()  # dev.py run
    module.ensure_venv("test")  # the next dev.py test
    assert calls == []


def test_a_missing_extra_installs_the_union_once(dev: tuple[ModuleType, list[list[str]]]) -> None:
    module, calls = dev
    module.ensure_venv("test")
    module.ensure_venv("package")
    module.ensure_venv("test")
    module.ensure_venv("package")
    assert installs(calls) == [".[test]", ".[package,test]"]
    stamp = json.loads((module.VENV / ".installed").read_text())
    assert stamp["extras"] == ["package", "test"]


def test_a_changed_pyproject_or_an_old_stamp_installs_again(dev: tuple[ModuleType, list[list[str]]]) -> None:
    module, calls = dev
    (module.VENV / ".installed").write_text("0123abcd")  # written by the dev.py before issue 15
    module.ensure_venv()
    assert installs(calls) == ["."]
    (module.ROOT / "pyproject.toml").write_text("[project]\nname = 'y'\n")
    module.ensure_venv()
    assert installs(calls) == [".", "."]
