"""A form generated from a JSON schema (see :mod:`.form`).

Modules:

- ``containers``: Nested objects and arrays of the form, and :func:`build_field`, which picks a widget per spec.
- ``fields``: The form's field widgets for single values: text, numbers, booleans, choices, raw JSON.
- ``form``: ``SchemaForm``: a form generated from a JSON schema, with a raw-JSON editor kept in sync.
- ``schema``: Reading a JSON schema for the form: ``$ref``/``$defs`` resolved, nullable unions unwrapped.
"""

from elftia_desktop.ui.widgets.schema_form.form import SchemaForm

__all__ = ["SchemaForm"]
