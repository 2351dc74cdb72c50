"""The shared JSON input layer: encodings, size and depth bounds, syntax errors, all with positions."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from elftia_desktop.core.errors import JsonInputError
from elftia_desktop.core.json_input import (
    MAX_DEPTH,
    decode_json_bytes,
    parse_json_text,
    read_json_file,
)


def test_invalid_utf8_names_the_byte_offset_line_and_column() -> None:
    data = b'{\n  "a": "caf\xe9"\n}'
    with pytest.raises(JsonInputError) as caught:
        decode_json_bytes(data, "servers.json")
    message = str(caught.value)
    assert "servers.json is not valid UTF-8" in message
    assert "byte 0xe9 at offset 13" in message and "(line 2, column 12)" in message
    assert "save the file as UTF-8" in message
    assert (caught.value.line, caught.value.column) == (2, 12)


def test_a_utf8_bom_is_accepted_and_wide_encodings_are_named() -> None:
    assert decode_json_bytes(codecs.BOM_UTF8 + b'{"a": 1}', "f") == '{"a": 1}'
    assert parse_json_text('\ufeff{"a": 1}') == {"a": 1}
    with pytest.raises(JsonInputError, match="f is encoded as UTF-16; save it as UTF-8"):
        decode_json_bytes('{"a": 1}'.encode("utf-16"), "f")


def test_deep_nesting_is_refused_with_the_spot_not_a_recursion_error() -> None:
    with pytest.raises(JsonInputError) as caught:
        parse_json_text("[" * 5000 + "]" * 5000, "pasted JSON")
    assert f"deeper than {MAX_DEPTH} levels" in str(caught.value)
    assert (caught.value.line, caught.value.column) == (1, MAX_DEPTH + 1)
    # below Python's recursion limit but above ours, inside an object, after a string with brackets
    text = '{"s": "[[[{{{", "v": ' + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5) + "}"
    with pytest.raises(JsonInputError) as caught:
        parse_json_text(text)
    first_array = text.index("[", text.index('"v"'))  # not the brackets inside the string
    assert caught.value.column == first_array + MAX_DEPTH  # level 101 = the object + 100 arrays (1-based)
    assert parse_json_text("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None


def test_size_is_bounded() -> None:
    with pytest.raises(JsonInputError, match=r"too large: 1\.0 Ki characters \(the limit is 512\)"):
        parse_json_text(" " * 1024, max_chars=512)


def test_syntax_errors_keep_line_and_column() -> None:
    with pytest.raises(JsonInputError) as caught:
        parse_json_text('{\n  "a": 1,\n}', "x.json")
    assert "x.json is not valid JSON" in str(caught.value)
    assert (caught.value.line, caught.value.column) == (3, 1)


def test_unreadable_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(JsonInputError, match="cannot be read"):
        read_json_file(tmp_path / "missing.json")
    with pytest.raises(JsonInputError, match="cannot be read"):
        read_json_file(tmp_path)
