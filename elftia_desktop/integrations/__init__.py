"""Other apps' MCP configs (detect, import, export) and the claude CLI bridge.

Modules:

- ``app_config_file``: Changing another app's config file safely: where it is, a backup first, an atomic write.
- ``app_formats``: What each app's MCP config file looks like: root key, field names, units and placeholders.
- ``claude_cli``: The bridge to the ``claude`` CLI (Claude Code): detect it, list, add, remove and import its
  servers.
- ``claude_secrets``: Secret values for a server pushed to Claude Code, kept off every command line.
- ``detector``: Find other apps' MCP config files on this machine and read the servers in them.
- ``exporter``: Write a selection of our servers in another app's format.
- ``importer``: Turn other apps' server entries into ours: normalise, preview, then add with a conflict policy.
- ``jsonc``: JSON with comments (VS Code's settings, Zed's) read as JSON: comments and trailing commas become
  spaces, so every line and column stays where it was for the error messages.
- ``transfer``: What the Import and export page does, as plain functions over the detector, importer and
  exporter.
"""
