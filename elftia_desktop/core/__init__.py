"""Pure-Python core: data model, config store, secrets, presets. No Qt, no MCP SDK.

Modules:

- ``agent_models``: Agents and what they get: the MCP mode, the selected servers and tools, payload previews.
- ``agent_store``: The agents and which MCP servers and tools each may use: ``{data dir}/agents.json``.
- ``approvals``: Which tools run without asking first: the user's switches, else the tool's ``readOnlyHint``.
- ``apps``: MCP Apps (the ``io.modelcontextprotocol/ui`` extension): which tools a model may be given.
- ``argument_check``: Checking tool arguments against the tool's input schema with ``jsonschema``, errors by
  field path.
- ``atomic_file``: Crash-safe file writes and an inter-process file lock (stdlib only).
- ``catalog``: CRUD of server records on the config store, with secrets moved to the vault.
- ``config_store``: The persistent server list: ``{data dir}/mcp-config.json``.
- ``dpop``: DPoP (RFC 9449) proofs: one server's P-256 key pair and the ES256 JWTs it signs.
- ``env_risks``: Environment variables that change what a program loads or runs, and placeholders filled from
  ours.
- ``errors``: The app's exception tree. Every error a user may see is one of these::
- ``extensions``: The protocol's extensions (SEP-2133): which ones Elftia speaks, and how they are named for
  people.
- ``first_run``: What a fresh install starts with: the built-in servers, so the app does something real with no
  Node and no network, and one agent ("Assistant", auto) so the tool picker shows them.
- ``icons``: Server and tool icons (the protocol's ``icons``): which one to use, and what bytes are acceptable.
- ``install_link``: Install links: ``elftia://install-mcp?name=NAME&config=CONFIG`` to one untrusted server.
- ``json_input``: The one door for JSON from outside: files, pasted text, stdin, other apps' configs, CLI
  arguments.
- ``json_store``: A versioned JSON file holding a list of pydantic models, safe for concurrent writers.
- ``login_env``: The login shell's environment and the one PATH commands are found on (the pool, the
  Dependencies page, the CLI).
- ``model_base``: The base of every model: camelCase JSON names (the original app's), snake_case attributes.
- ``models``: The shared data model (the original ``mcp-types.ts``) as pydantic v2 models.
- ``oauth_config``: The ``oauth`` object of an SSE/HTTP server's config (re-exported by ``core.models``).
- ``paths``: Where the app keeps its files: the user data folder, or ``ELFTIA_DATA_DIR`` when set.
- ``presets``: Server presets (the original ``mcp-presets``): ready-made server definitions.
- ``resources``: Finding files of the repo's ``resources/`` folder at run time.
- ``results``: What servers and runtimes answer: test, discover, tool lists, tool calls, dependency checks and
  installs.
- ``sandbox``: A stdio server's sandbox profile (the record's ``"sandbox"``): what it may read, write and reach.
- ``secret_detect``: Secrets recognised by their value: well-known token shapes, URL credentials, high-entropy
  strings.
- ``secrets``: Secrets of server records: env and header values that must not sit in the JSON.
- ``server_draft``: A server as the add/edit form holds it (``ServerDraft``), checked into an ``McpServerInput``
  or field errors.
- ``server_json``: Server definitions from JSON text: the shapes people paste from READMEs and other apps.
- ``server_update``: ``McpServerUpdate``: the typed change ``mcp:update`` takes (the fields given are set, the
  others kept).
- ``settings_store``: The app's settings: ``{data dir}/settings.json``, written with the same safe store as the
  config.
- ``skill_pins``: Skill pinning: a server's skills as they were when first seen, and which changed since.
- ``skills``: Skills over MCP (SEP-2640): a skill's entry, checked as it arrives, and its files checked as they
  are read.
- ``text_rules``: Rules for the text fields of a server definition: what can never work is refused up front.
- ``tool_names``: Tool names: the one sanitizer behind every tool id and provider name (DESIGN.md §5).
- ``tool_pin_store``: The pinned tool definitions of every trusted server: ``{data dir}/tool-pins.json`` (0600).
- ``tool_pins``: Tool pinning: what a trusted server's tools said when the user trusted it, and what changed
  since.
- ``trust``: What a server will run, shown to the user before it is trusted, and what changed since.
- ``url_elicitation``: URL-mode elicitation: a server asks the user to open an address (a sign-in, a payment)
  out of band.
"""
