"""What differs between Linux, macOS and Windows, in one place: every other module imports on every OS.

Only modules of this package branch on ``sys.platform`` / ``os.name`` in ways that matter, and only
they import POSIX-only (``fcntl``, ``termios``, ``resource``, ``pwd``, ``grp``) or Windows-only
modules, lazily inside the branch that needs them. Qt-free and below ``core``: it imports nothing
else of the package.

Modules:

- ``associations``: The ``elftia://`` URL scheme and the ``.mcpb`` file type: what is registered, and its
  registration by the app.
- ``autostart``: Start at login: the entry that runs ``elftia-mcp daemon run --stay`` when the user logs in.
- ``commands``: Finding a command on a PATH, and reading the login shell's environment, per OS.
- ``endpoint``: The pool host's local endpoint: a 0600 Unix socket on Linux and macOS, 127.0.0.1 with a token on
  Windows.
- ``file_access``: Who besides the user may change (or read) a file or folder: the mode on POSIX, the ACL on
  Windows.
- ``groups``: Process groups and kill scopes that need no SDK: the options that start a child in its own group,
  and killing it.
- ``keyring_store``: Which OS store the ``keyring`` package keeps secrets in, per OS, and what to do when it
  does not work.
- ``lock``: Exclusive locks on files, released by the OS when their holder dies.
- ``own_command``: The command line of this installation's ``elftia-mcp``, whichever of its programs asks.
- ``pipes``: Reading an inherited pipe (a stdio gateway's stdin) on the event loop, per OS.
- ``privileges``: Whether this process runs with the superuser's rights (POSIX root; never on Windows).
- ``proc_identity``: Who a process is, and signalling only the process that was meant: pid plus start time.
- ``processes``: Child processes on every OS: how to start one in its own kill scope, and how to stop or kill
  that scope.
- ``runtime``: The user's private runtime folder (for the pool host's socket), private files and detached
  processes, on every OS.
- ``sandbox``: Running a command in a sandbox, whatever the OS: which sandbox works here and the wrapped command
  line.
- ``sandbox_forward``: Runs inside a Linux sandbox (stdlib only, ``python -I -S``): the proxy port on the
  sandbox's loopback.
- ``sandbox_linux``: The bubblewrap command line for a ``SandboxSpec``.
- ``sandbox_macos``: The macOS sandbox: a ``sandbox-exec`` profile (SBPL) generated from a ``SandboxSpec``.
- ``tcp_peers``: Which local process holds an HTTP client's TCP connection (Linux ``/proc``), so the Activity
  can name it.
"""
