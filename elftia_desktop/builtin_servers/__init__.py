"""Built-in MCP servers shipped with the app.

Modules:

- ``clock``: Built-in MCP server: the current time in any IANA zone, conversions, zone look-up and date
  arithmetic.
- ``launcher``: How to start a built-in server: ``python -m MODULE``, or the frozen app's own executable with a
  flag.
- ``notes``: Built-in MCP server: notes kept in the app's data folder, as tools and as ``note://{id}``
  resources.
- ``notes_store``: The notes server's storage: one JSON file per note in ``data_dir()/notes``, written
  atomically.
- ``timezones``: Time-zone helpers for the clock server: look-up, loose name resolution, parsing and month
  arithmetic.
"""
