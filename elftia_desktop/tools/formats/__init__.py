"""One converter module per provider.

Modules:

- ``anthropic``: MCP tools -> Anthropic Messages API tools ``{name, description, input_schema}``.
- ``gemini``: MCP tools -> Gemini ``[{"functionDeclarations": [...]}]``, with ``parameters`` or
  ``parametersJsonSchema``.
- ``gemini_json``: JSON Schema -> the subset Gemini documents for ``parametersJsonSchema``.
- ``gemini_schema``: JSON Schema -> Gemini's OpenAPI-subset ``Schema`` (the ``parameters`` of a function
  declaration).
- ``jsonschema``: A JSON Schema 2020-12 clean-up shared by the providers that take real JSON Schema.
- ``jsonschema_keywords``: The JSON Schema keywords the 2020-12 clean-up knows: which hold subschemas, which are
  rewritten or dropped, how each keyword's value is checked, and which values the cleaner keeps as they are.
- ``openai``: MCP tools -> OpenAI function tools (Chat Completions and Responses shapes).
- ``openai_strict``: OpenAI strict mode (Structured Outputs for function calling) and the way back for
  arguments.
- ``strict_nulls``: OpenAI strict mode's nulls: nullable schemas, and the way back for a model's arguments from
  the original schema.
"""
