"""Secrets of server records: env and header values that must not sit in the JSON.

A secret value goes to the OS keyring (service ``elftia``, account
``{serverId}:{env|header|url|oauth}:{NAME}``) and the record keeps ``${secret:NAME}`` in its place.
A value is secret when its name looks secret, when the user marked it, or when the value itself
looks like one (a GitHub or OpenAI token, a JWT, a private key ...: :mod:`core.secret_detect`);
a URL's password and secret-looking query parameters (kind ``url``) go to the keyring too.
OAuth uses kind ``oauth``: the configured ``clientSecret``, ``privateKey`` and ``idpIdToken``, and the sign-in
session (``tokens``, the registered ``client``) written by the token storage.
Values are resolved only when a server starts. Where no keyring works, secrets go to a
0600 file in the user config folder and ``warning`` says so, for the UI to show.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from pathlib import Path
from typing import Literal
from urllib.parse import quote, quote_plus

import keyring
import keyring.errors
from keyring.backend import KeyringBackend

from elftia_desktop.core.atomic_file import FileLock, atomic_write_text
from elftia_desktop.core.errors import SecretStoreError
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.core.oauth_config import OAUTH_SECRETS, McpOAuthConfig
from elftia_desktop.core.paths import config_dir, unsafe_message
from elftia_desktop.core.secret_detect import secret_kind, url_secrets
from elftia_desktop.platform.file_access import exposure
from elftia_desktop.platform.keyring_store import keyring_store

log = logging.getLogger(__name__)

SERVICE_NAME = "elftia"
SECRETS_FILE_NAME = "secrets.json"
SECRET_NAME_PATTERN = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|AUTH|CREDENTIAL|COOKIE", re.IGNORECASE)
SECRET_REF_PATTERN = re.compile(r"^\$\{secret:([^}]+)\}$")
SECRET_REF_INSIDE = re.compile(r"\$\{secret:([^}]+)\}")
PLACEHOLDER_PATTERN = re.compile(r"\$\{[^}]+\}|^\$[A-Za-z_][A-Za-z0-9_]*$")

SecretKind = Literal["env", "header", "url", "oauth"]
OAUTH_SESSION_NAMES = ("tokens", "client", "dpop_key")
"""What a sign-in leaves in the vault: the tokens, the dynamically registered client and the DPoP key."""


def _oauth_settings(oauth: McpOAuthConfig | None) -> list[tuple[McpOAuthConfig, str]]:
    """(the oauth object, secret name) of each OAuth setting that goes to the keyring (none without the object)."""
    return [(oauth, name) for name in OAUTH_SECRETS] if oauth is not None else []


def looks_secret(name: str) -> bool:
    """True when a variable or header name suggests its value is a secret."""
    return bool(SECRET_NAME_PATTERN.search(name))


def secret_ref(name: str) -> str:
    """The reference kept in the JSON instead of the value."""
    return f"${{secret:{name}}}"


def is_secret_ref(value: str) -> bool:
    """True when ``value`` is a ``${secret:NAME}`` reference."""
    return bool(SECRET_REF_PATTERN.match(value))


def is_placeholder(value: str) -> bool:
    """True for ``${env:X}``, ``${input:id}``, ``${VAR}`` and ``$VAR``: nothing to hide."""
    return bool(PLACEHOLDER_PATTERN.search(value))


def _account(server_id: str, kind: SecretKind, name: str) -> str:
    return f"{server_id}:{kind}:{name}"


def keyring_works(backend: KeyringBackend | None = None) -> bool:
    """False for the ``fail`` and ``null`` backends and plaintext ``keyrings.alt`` ones."""
    backend = backend or keyring.get_keyring()
    module = type(backend).__module__
    if module.startswith(("keyring.backends.fail", "keyring.backends.null", "keyrings.alt")):
        return False
    chained = getattr(backend, "backends", None)
    if chained is not None:
        return any(keyring_works(b) for b in chained)
    return True


class _FileSecrets:
    """The fallback: a JSON map in a file only the user can read (0600; on Windows its ACL is checked).

    A file other users can read or change is refused (:class:`SecretStoreError` with the fix), never used.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = FileLock(path.with_name(path.name + ".lock"))

    def _read(self) -> dict[str, str]:
        found = exposure(self.path, read=True)
        if found is not None:
            raise SecretStoreError(
                unsafe_message(f"The secrets file {self.path} can be read by other users of this computer", found)
            )
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            raise SecretStoreError(f"The secrets file {self.path} cannot be read: {exc}") from exc
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def get(self, account: str) -> str | None:
        """The stored value of ``account``, or None."""
        with self._lock.hold():
            return self._read().get(account)

    def set(self, account: str, value: str) -> None:
        """Store ``value`` for ``account`` (the file is rewritten atomically, mode 0600)."""
        with self._lock.hold():
            data = self._read()
            data[account] = value
            atomic_write_text(self.path, json.dumps(data, indent=2), mode=0o600)

    def delete(self, accounts: list[str]) -> None:
        """Forget ``accounts`` (the file is rewritten only when one was stored)."""
        with self._lock.hold():
            data = self._read()
            if any(a in data for a in accounts):
                for account in accounts:
                    data.pop(account, None)
                atomic_write_text(self.path, json.dumps(data, indent=2), mode=0o600)


class SecretVault:
    """Moves secret values out of records and puts them back when a server starts."""

    def __init__(self, backend: KeyringBackend | None = None, fallback_path: Path | None = None) -> None:
        self._backend = backend
        self._fallback = _FileSecrets(fallback_path or config_dir() / SECRETS_FILE_NAME)
        self._use_keyring = keyring_works(self._keyring())
        self._guard = threading.Lock()
        self.warning: str | None = None
        if not self._use_keyring:
            self._fall_back("no working OS keyring was found")

    def _keyring(self) -> KeyringBackend:
        return self._backend or keyring.get_keyring()

    def _fall_back(self, why: str) -> None:
        self._use_keyring = False
        self.warning = (
            f"Secrets are stored in {self._fallback.path} (readable only by you) because {why}. "
            f"Install or unlock {keyring_store()} to keep them there instead."
        )
        log.info(self.warning)

    @property
    def uses_keyring(self) -> bool:
        """True while secrets go to the OS keyring."""
        return self._use_keyring

    def store(self, server_id: str, kind: SecretKind, name: str, value: str) -> None:
        """Keep one secret value."""
        account = _account(server_id, kind, name)
        with self._guard:
            if self._use_keyring:
                try:
                    self._keyring().set_password(SERVICE_NAME, account, value)
                    return
                except keyring.errors.KeyringError as exc:
                    self._fall_back(f"the keyring refused to store a secret ({exc})")
            self._fallback.set(account, value)

    def load(self, server_id: str, kind: SecretKind, name: str) -> str | None:
        """One secret value, from the keyring or the fallback file."""
        account = _account(server_id, kind, name)
        if self._use_keyring:
            try:
                value = self._keyring().get_password(SERVICE_NAME, account)
            except keyring.errors.KeyringError as exc:
                raise SecretStoreError(f"The keyring could not be read for {kind} {name}: {exc}") from exc
            if value is not None:
                return value
        return self._fallback.get(account)

    def delete(self, server_id: str, kind: SecretKind, name: str) -> None:
        """Forget one secret wherever it is."""
        account = _account(server_id, kind, name)
        if self._use_keyring:
            try:
                self._keyring().delete_password(SERVICE_NAME, account)
            except keyring.errors.PasswordDeleteError:
                pass
            except keyring.errors.KeyringError as exc:
                log.warning("Could not delete secret %s from the keyring: %s", account, exc)
        self._fallback.delete([account])

    def extract(self, record: McpServerRecord, marked: set[str] | None = None) -> McpServerRecord:
        """Store the record's secret values and return a copy with references in their place.

        A value is secret when its name looks secret or is in ``marked``, or when the value looks
        like a token; references and placeholders (``${env:X}``, ``${input:id}``) stay as they are.
        Credentials in the URL are moved out too.
        """
        marked = marked or set()
        out = record.model_copy(deep=True)
        for kind, values in (("env", out.config.env), ("header", out.config.headers)):
            for name, value in values.items():
                if is_secret_ref(value) or is_placeholder(value) or not value:
                    continue
                if name in marked or looks_secret(name) or secret_kind(value):
                    self.store(out.id, kind, name, value)  # type: ignore[arg-type]
                    values[name] = secret_ref(name)
        if out.config.url:
            out.config.url, taken = url_secrets(out.config.url)
            for name, value in taken.items():
                self.store(out.id, "url", name, value)
        oauth = out.config.oauth
        for owner, name in _oauth_settings(oauth):
            given = owner.secret(name)
            if given and not is_secret_ref(given):
                self.store(out.id, "oauth", name, given)
                owner.set_secret(name, secret_ref(name))
        return out

    def resolve(self, record: McpServerRecord) -> tuple[dict[str, str], dict[str, str]]:
        """The record's env and headers with every ``${secret:NAME}`` replaced by its value."""
        return (
            self._resolve_map(record.id, "env", record.config.env),
            self._resolve_map(record.id, "header", record.config.headers),
        )

    def _resolve_map(self, server_id: str, kind: SecretKind, values: dict[str, str]) -> dict[str, str]:
        resolved = {}
        for name, value in values.items():
            match = SECRET_REF_PATTERN.match(value)
            if match:
                secret = self.load(server_id, kind, match.group(1))
                if secret is None:
                    label = "environment variable" if kind == "env" else "header"
                    raise SecretStoreError(f"The secret value of {label} {name} is missing; enter it again.")
                value = secret
            resolved[name] = value
        return resolved

    def resolve_url(self, record: McpServerRecord) -> McpServerRecord:
        """``record`` itself, or a copy whose URL has its ``${secret:NAME}`` credentials filled in."""
        url = record.config.url or ""
        if "${secret:" not in url:
            return record

        def fill(match: re.Match[str]) -> str:
            """The stored secret for one ``${secret:NAME}``, quoted for its place in the URL."""
            value = self.load(record.id, "url", match.group(1))
            if value is None:
                raise SecretStoreError(f"The secret {match.group(1)} in the URL of {record.name} is missing.")
            return quote(value, safe="") if match.group(1) == "URL_PASSWORD" else quote_plus(value)

        out = record.model_copy(deep=True)
        out.config.url = SECRET_REF_INSIDE.sub(fill, url)
        return out

    def resolve_oauth(self, record: McpServerRecord) -> dict[str, str]:
        """The record's OAuth secret values by name (``clientSecret``, ``privateKey``, ``idpIdToken``: those set)."""
        oauth = record.config.oauth
        resolved: dict[str, str] = {}
        for owner, name in _oauth_settings(oauth):
            value = owner.secret(name)
            match = SECRET_REF_PATTERN.match(value or "")
            if match:
                value = self.load(record.id, "oauth", match.group(1))
                if value is None:
                    raise SecretStoreError(f"The OAuth {name} of {record.name} is missing; enter it again.")
            if value:
                resolved[name] = value
        return resolved

    def forget_session(self, server_id: str) -> None:
        """Delete a server's OAuth tokens and registered client (sign out)."""
        for name in OAUTH_SESSION_NAMES:
            self.delete(server_id, "oauth", name)

    def forget(self, record: McpServerRecord, session: bool = True) -> None:
        """Delete every secret the record refers to, and its OAuth sign-in unless ``session`` is False."""
        for kind, values in (("env", record.config.env), ("header", record.config.headers)):
            for value in values.values():
                match = SECRET_REF_PATTERN.match(value)
                if match:
                    self.delete(record.id, kind, match.group(1))  # type: ignore[arg-type]
        for name in SECRET_REF_INSIDE.findall(record.config.url or ""):
            self.delete(record.id, "url", name)
        oauth = record.config.oauth
        for owner, name in _oauth_settings(oauth):
            if is_secret_ref(owner.secret(name) or ""):
                self.delete(record.id, "oauth", name)
        if session:
            self.forget_session(record.id)
