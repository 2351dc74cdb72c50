"""PyInstaller entry of the window executable ``elftia-desktop`` (also serves ``--run-builtin-server``)."""

import sys

from elftia_desktop.app import main

if __name__ == "__main__":
    sys.exit(main())
