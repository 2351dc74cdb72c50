"""A form generated from a JSON schema (see :mod:`.form`)."""

from elftia_desktop.ui.widgets.schema_form.form import SchemaForm

__all__ = ["SchemaForm"]
