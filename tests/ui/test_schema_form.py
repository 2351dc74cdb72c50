"""Issue 10: the form generated from a JSON schema, its JSON tab, validation and URI templates."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from elftia_desktop.core.argument_check import check
from elftia_desktop.ui.dialogs.uri_template import expand, template_variables
from elftia_desktop.ui.widgets.schema_form import SchemaForm
from elftia_desktop.ui.widgets.schema_form.fields import BooleanField, EnumField, NumberField, RawField, StringField
from elftia_desktop.ui.widgets.schema_form.schema import MISSING, field_spec, resolve_ref, root_spec

SCHEMA = {
    "$defs": {
        "Point": {
            "type": "object",
            "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
            "required": ["x"],
        },
        "Tree": {"type": "object", "properties": {"child": {"$ref": "#/$defs/Tree"}}},
    },
    "type": "object",
    "properties": {
        "when": {"type": "string", "format": "date-time"},
        "site": {"type": "string", "format": "uri"},
        "count": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3},
        "ratio": {"anyOf": [{"type": "number"}, {"type": "null"}], "default": None},
        "mode": {"enum": ["fast", "slow"]},
        "loud": {"type": "boolean"},
        "point": {"$ref": "#/$defs/Point"},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "either": {"oneOf": [{"type": "string"}, {"type": "object"}]},
        "tree": {"$ref": "#/$defs/Tree"},
    },
    "required": ["when", "tags"],
}


def make(qtbot: QtBot, schema: dict = SCHEMA) -> SchemaForm:  # type: ignore[type-arg]
    form = SchemaForm(schema)
    qtbot.addWidget(form)
    form.show()
    return form


def test_specs_resolve_refs_unwrap_nullables_and_fall_back_to_raw() -> None:
    spec = root_spec(SCHEMA)
    kinds = {name: sub.kind for name, sub in spec.properties.items()}
    assert kinds == {
        "when": "string",
        "site": "string",
        "count": "integer",
        "ratio": "number",
        "mode": "enum",
        "loud": "boolean",
        "point": "object",
        "tags": "array",
        "either": "raw",
        "tree": "object",
    }
    assert spec.properties["ratio"].nullable and not spec.properties["ratio"].required
    assert spec.properties["point"].properties["x"].required and not spec.properties["point"].properties["y"].required
    assert resolve_ref({"$ref": "#/$defs/Missing"}, SCHEMA) is None
    assert resolve_ref({"$ref": "https://example.com/x.json"}, SCHEMA) is None
    deep = field_spec(SCHEMA["properties"]["tree"], SCHEMA)
    depth = 0
    while deep.kind == "object":
        deep, depth = deep.properties["child"], depth + 1
    assert deep.kind == "raw" and depth > 5, "a recursive $ref ends in a raw JSON field, not a hang"


def test_widgets_defaults_and_optional_marks(qtbot: QtBot) -> None:
    form = make(qtbot)
    assert isinstance(form.field("when"), StringField) and isinstance(form.field("count"), NumberField)
    assert isinstance(form.field("mode"), EnumField) and isinstance(form.field("loud"), BooleanField)
    assert isinstance(form.field("either"), RawField)
    assert form.field("when").editor.placeholderText() == "date-time: 2026-12-01T09:30:00Z"  # type: ignore[attr-defined]
    assert form.field("count").editor.placeholderText() == "integer, 1 – 10"  # type: ignore[attr-defined]
    assert form.value() == {"count": 3, "tags": []}, "defaults filled in; unset optional fields left out"
    mode = form.field("mode").editor  # type: ignore[attr-defined]
    assert [mode.itemText(i) for i in range(mode.count())] == ["— not set —", "fast", "slow"]
    loud = form.field("loud").editor  # type: ignore[attr-defined]
    assert loud.checkState() == Qt.CheckState.PartiallyChecked and loud.text() == "not set"
    labels = [label.text() for label in form.findChildren(type(form.problem)) if "<b>" in label.text()]
    assert "<b>when</b>" in labels and any(t.startswith("<b>site</b>") and "(optional)" in t for t in labels)
    placeholders = [w.editor.placeholderText() for w in (form.field("site"), form.field("either"))]  # type: ignore[attr-defined]
    assert not any("optional" in p for p in placeholders), "said once, in the label"


def test_json_tab_and_form_stay_in_sync(qtbot: QtBot) -> None:
    form = make(qtbot)
    qtbot.keyClicks(form.field("when").editor, "2026-12-01T09:30:00Z")  # type: ignore[attr-defined]
    assert json.loads(form.json_edit.toPlainText()) == {"when": "2026-12-01T09:30:00Z", "count": 3, "tags": []}
    form.json_edit.setPlainText(json.dumps({"count": 7, "tags": ["a", "b"], "point": {"x": 1.5}, "extra": True}))
    assert form.field("count").editor.text() == "7"  # type: ignore[attr-defined]
    assert [row.value() for row in form.field("tags").rows] == ["a", "b"]  # type: ignore[attr-defined]
    assert form.field("point", "x").value() == 1.5
    assert form.value()["extra"] is True, "keys the form has no field for are kept from the JSON"
    form.json_edit.setPlainText('{"count": 7,')
    assert not form.json_error.isHidden() and "line 1" in form.json_error.text()
    assert form.validate() and form.tabs.currentIndex() == 1, "broken JSON is never sent"


def test_validation_messages_land_on_their_fields(qtbot: QtBot) -> None:
    form = make(qtbot)
    form.field("when").editor.setText("tomorrow")  # type: ignore[attr-defined]
    form.field("site").editor.setText("not a uri")  # type: ignore[attr-defined]
    form.field("count").editor.setText("42")  # type: ignore[attr-defined]
    form.field("point").children_by_name["y"].editor.setText("2")  # type: ignore[attr-defined]
    issues = form.validate()
    where = {i.where: i.message for i in issues}
    assert set(where) == {"when", "site", "count", "point.x", "tags"}
    assert form.field("when").error.text() == 'Not a valid date-time: "tomorrow".'
    assert "42 is greater than the maximum of 10" in form.field("count").error.text()
    assert form.field("point", "x").error.text() == "Required: fill this in."
    assert form.field("tags").error.isVisible() and form.problem.text() == "5 problems: see the marked fields."
    form.field("either").editor.setPlainText("{oops")  # type: ignore[attr-defined]
    (issue,) = form.validate()
    assert issue.message.startswith("Not JSON:") and "column 2" in issue.message
    assert form.field("either").error.text() == issue.message, "shown under the raw JSON field itself"


def test_an_edit_takes_its_fields_error_away_and_nothing_below_moves(qtbot: QtBot) -> None:
    """Typing into a field marked "Required" hides the mark at once; its line stays until the next check, so
    the next field does not jump up under the pointer (the Try and Discover forms, found in the walk)."""
    form = make(qtbot)
    form.validate()
    when, site = form.field("when"), form.field("site")
    assert when.error.isVisible()
    QApplication.processEvents()
    below = site.mapTo(form, site.rect().topLeft())
    qtbot.keyClicks(when.editor, "2026-12-05T10:00:00Z")  # type: ignore[attr-defined]
    QApplication.processEvents()
    assert not when.error.isVisible(), "the error goes with the edit"
    assert site.mapTo(form, site.rect().topLeft()) == below, "the field below stays where it was"
    issues = form.validate()
    assert "when" not in {i.where for i in issues} and not when.error.isVisible()


def test_check_without_a_form() -> None:
    assert check({"type": "object", "properties": {"e": {"type": "string", "format": "email"}}}, {"e": "a@b.c"}) == []
    (bad,) = check({"type": "object", "properties": {"n": {"enum": [1, 2]}}}, {"n": 3})
    assert bad.where == "n" and bad.message == "Must be one of 1, 2."
    (broken,) = check({"type": "object", "properties": {"n": {"type": "nonsense"}}}, {})
    assert "not valid JSON Schema" in broken.message
    assert MISSING is not None and not MISSING


def test_uri_templates() -> None:
    assert template_variables("memo://notes/{topic}{?page,size}") == ["topic", "page", "size"]
    assert expand("memo://notes/{topic}{?page,size}", {"topic": "a b", "page": "2"}) == "memo://notes/a%20b?page=2"
    assert expand("file://{+path}", {"path": "/tmp/x y"}) == "file:///tmp/x%20y"
    assert expand("repo://{owner}{/name}", {"owner": "me", "name": "r"}) == "repo://me/r"


def test_number_fields_take_big_integers_and_dot_decimals(qtbot: QtBot) -> None:
    schema = {"type": "object", "properties": {"big": {"type": "integer"}, "x": {"type": "number"}}}
    form = make(qtbot, schema)
    qtbot.keyClicks(form.field("big").editor, "9007199254740993abc")  # type: ignore[attr-defined]
    qtbot.keyClicks(form.field("x").editor, "2.5e3")  # type: ignore[attr-defined]
    assert form.value() == {"big": 9007199254740993, "x": 2500.0}
