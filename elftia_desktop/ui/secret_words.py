"""How the window speaks of where secrets go: true whether or not an OS keyring works.

Without a working keyring the vault keeps secrets in a file only the user can read
(``core.secrets.SecretVault``); Settings › Secrets says which of the two is in use."""

from __future__ import annotations

SECRET_STORE = "the OS keyring, or a file only you can read when no keyring works (Settings › Secrets says which)"
"""Where a secret value goes, for tooltips."""

KEPT = f"kept in {SECRET_STORE}, never in the config file"
"""The end of a tooltip on a secret field."""
