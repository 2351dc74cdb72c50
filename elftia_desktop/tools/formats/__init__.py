"""One converter module per provider.

Modules:

- ``anthropic``: MCP tools -> Anthropic Messages API tools ``{name, description, input_schema}``.
- ``gemini``: MCP tools -> Gemini ``[{"functionDeclarations": [...]}]``, with ``parameters`` or
  ``parametersJsonSchema``.
- ``gemini_json``: JSON Schema -> the subset Gemini documents for ``parametersJsonSchema``.
- ``gemini_schema``: JSON Schema -> Gemini's OpenAPI-subset ``Schema`` (the ``parameters`` of a function
  declaration).
- ``jsonschema``: A JSON Schema 2020-12 clean-up shared by the providers that take real JSON Schema.
- ``openai``: MCP tools -> OpenAI function tools (Chat Completions and Responses shapes).
- ``openai_strict``: OpenAI strict mode (Structured Outputs for function calling) and the way back for
  arguments.
- ``strict_nulls``: OpenAI strict mode's nulls: nullable schemas, and the way back for a model's arguments from
  the original schema.
"""
