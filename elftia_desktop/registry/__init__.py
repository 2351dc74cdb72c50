"""Finding and installing servers: the MCP Registry API, ``server.json`` entries and ``.mcpb`` bundles.

Qt-free. ``entry`` holds the ``server.json`` models, ``client`` talks to a registry over HTTP,
``cache`` keeps a registry on disk and searches it, ``plan`` turns an entry into a pinned launch
and an inputs form, ``bundle`` reads ``.mcpb`` files, ``install`` adds the result as an untrusted
server, and ``updates`` finds installed servers with a newer version.
"""
