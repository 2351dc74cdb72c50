"""Issue 32: names and values in messages are quoted one way: plain double quotes, hidden characters shown."""

from __future__ import annotations

import pytest

from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.errors import DuplicateServerName
from elftia_desktop.core.models import McpServerInput
from elftia_desktop.core.secrets import SecretVault
from elftia_desktop.core.text_rules import quoted


def test_quoted_uses_double_quotes_and_shows_hidden_characters() -> None:
    assert quoted("notes") == '"notes"'
    assert quoted("it's") == '"it\'s"'
    assert quoted("a\nb\u202e") == '"a\\nb\\u202e"'
    assert quoted(5432) == '"5432"'


def test_a_taken_name_is_named_in_double_quotes() -> None:
    catalog = ServerCatalog(ConfigStore(), SecretVault())
    catalog.add(McpServerInput(name="Files", config={"command": "npx"}))
    with pytest.raises(DuplicateServerName) as refused:
        catalog.add(McpServerInput(name="files", config={"command": "npx"}))
    assert str(refused.value) == 'name: a server named "Files" exists already'
