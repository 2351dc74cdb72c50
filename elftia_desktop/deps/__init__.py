"""Runtime dependency checks (npx, uvx, node, docker ...) and installs.

Modules:

- ``checker``: Is the runtime a stdio server needs on this machine, which version, and is it new enough?
- ``command_map``: Which runtime command a server's launch line really needs.
- ``installer``: Installing runtimes without admin rights into the app's tools folder.
- ``overview``: The Dependencies page's table: every runtime of the declarative table, checked, with its users.
- ``process``: Running short helper programs (``--version`` probes, shells, pip, npm) with a time limit.
- ``requirements``: The runtimes stdio servers are started with, as a declarative table.
- ``system_package``: Runtimes that come from the OS's package manager (bubblewrap): what the app may run, what
  it says.
"""
