"""What differs between Linux, macOS and Windows, in one place: every other module imports on every OS.

Only modules of this package branch on ``sys.platform`` / ``os.name`` in ways that matter, and only
they import POSIX-only (``fcntl``, ``termios``, ``resource``, ``pwd``, ``grp``) or Windows-only
modules, lazily inside the branch that needs them. Qt-free and below ``core``: it imports nothing
else of the package.
"""
