"""Issue 10: the settings file: defaults, atomic save with a backup, broken and newer files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from elftia_desktop.core.errors import ConfigTooNew
from elftia_desktop.core.settings_store import AppSettings, SettingsStore


def test_defaults_then_a_saved_value_survives_a_new_store(tmp_path: Path) -> None:
    store = SettingsStore(tmp_path / "settings.json")
    assert store.load() == AppSettings()
    store.save(AppSettings(call_timeout=45, startup="at-start", theme="dark"))
    again = SettingsStore(tmp_path / "settings.json").load()
    assert (again.call_timeout, again.startup, again.theme, again.connect_timeout) == (45, "at-start", "dark", 30)
    data = json.loads((tmp_path / "settings.json").read_text())
    assert data["version"] == 1 and data["settings"]["callTimeout"] == 45
    store.save(AppSettings(log_lines=900))
    backup = json.loads((tmp_path / "settings.json.bak").read_text())
    assert backup["settings"]["callTimeout"] == 45


def test_a_corrupt_file_is_moved_aside_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"version": 1, "settings": {"theme": "dark",}}', encoding="utf-8")
    store = SettingsStore(path)
    assert store.load() == AppSettings()
    assert "line 1, column 45" in store.notices[0] and "moved to settings.json.corrupt-" in store.notices[0]
    assert not path.exists() and list(tmp_path.glob("settings.json.corrupt-*"))


def test_a_bad_value_falls_back_to_its_default_and_names_the_field(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"version": 1, "settings": {"theme": "dark", "callTimeout": -3}}), encoding="utf-8")
    store = SettingsStore(path)
    loaded = store.load()
    assert loaded.theme == "dark" and loaded.call_timeout == 120
    assert "callTimeout" in store.notices[0]
    assert path.exists()  # kept as it is until the user saves


def test_a_newer_file_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    text = json.dumps({"version": 99, "settings": {}})
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigTooNew, match="newer Elftia"):
        SettingsStore(path).load()
    with pytest.raises(ConfigTooNew):
        SettingsStore(path).save(AppSettings())
    assert path.read_text(encoding="utf-8") == text
