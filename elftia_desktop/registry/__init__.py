"""Finding and installing servers: the MCP Registry API, ``server.json`` entries and ``.mcpb`` bundles.
Qt-free.

Modules:

- ``bundle``: ``.mcpb`` bundles (MCP Bundles, formerly ``.dxt``): a zip with ``manifest.json`` at its top.
- ``bundle_plan``: Installing a ``.mcpb`` bundle: its ``user_config`` form, platform overrides, compatibility, a
  safe unpack into the app's data folder, and the untrusted server that runs it.
- ``cache``: Registries kept on disk and searched in memory.
- ``client``: An MCP Registry over HTTP: ``GET /v0.1/servers`` with paging, versions, one version's entry.
- ``entry``: The ``server.json`` format of the MCP Registry (schema 2025-09-29 and later), as pydantic models.
- ``errors``: Errors of finding and installing servers::
- ``form``: The inputs form of an install: fields generated from an entry or a bundle, and their checked values.
- ``install``: Installing from a registry entry or a bundle file: check the runtimes, download and verify an
  ``mcpb`` package, then add the server **untrusted** through the catalog (secrets to the keyring).
- ``plan``: From a registry entry to a server: which package (or remote) fits this machine, the inputs form, and
  the launch pinned to the entry's exact version.
- ``updates``: Updates of servers installed from a registry: which have a newer version, and re-pinning one.
"""
