"""Errors of finding and installing servers::

    ElftiaError
    ├── RegistryError               a registry or a download could not be used
    │   ├── RegistryUnreachable     down, refused, DNS, or no answer in time
    │   ├── RegistryBadAnswer       HTML, malformed JSON, a page too large, an entry of the wrong shape
    │   └── DownloadMismatch        a downloaded file's SHA-256 is not the published one
    └── ConfigError
        ├── EntryNotInstallable     unknown registryType, no package for this machine, deprecated ...
        ├── InputsMissing           required inputs were not given (``missing`` names them)
        └── BundleError             a ``.mcpb`` file that is not a zip, unsafe paths, a bad manifest

A CLI command exits with 1 for a ``RegistryError`` and 2 for the ``ConfigError`` kinds.
"""

from __future__ import annotations

from elftia_desktop.core.errors import ConfigError, ElftiaError


class RegistryError(ElftiaError):
    """A registry or a download could not be used."""


class RegistryUnreachable(RegistryError):
    """The registry is down, refused the connection, or did not answer in time."""


class RegistryBadAnswer(RegistryError):
    """The registry answered something that is not its API's JSON."""


class DownloadMismatch(RegistryError):
    """A downloaded file does not have the published SHA-256."""


class EntryNotInstallable(ConfigError):
    """The entry cannot be installed here (unknown package type, deprecated, nothing fits)."""


class InputsMissing(ConfigError):
    """Required inputs were not given; ``missing`` holds their keys."""

    def __init__(self, message: str, missing: list[str]) -> None:
        super().__init__(message)
        self.missing = missing


class BundleError(ConfigError):
    """A ``.mcpb`` bundle that cannot be used (not a zip, unsafe paths, bad manifest)."""
