"""The application layer: one assembly point for the services and Qt-free actions on them.

:mod:`.services` opens everything (stores, secrets vault, agents, saved settings, ``McpService``)
for the window, every CLI command and the gateway. The action modules (:mod:`.servers`,
:mod:`.tools`, :mod:`.agents`, :mod:`.sign_in`, :mod:`.dependencies`, :mod:`.integrations`) return
typed results; the words a user reads are built from their fields in :mod:`.messages`.
"""
