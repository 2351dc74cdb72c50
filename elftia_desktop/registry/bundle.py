"""``.mcpb`` bundles (MCP Bundles, formerly ``.dxt``): a zip with ``manifest.json`` at its top.

Manifest versions 0.1 (``dxt_version``) to 0.4 (``manifest_version``) are read; ``server.type`` is
``node``, ``python``, ``uv`` or ``binary``. A signed bundle ends with a signature block
(``MCPB_SIG_V1``, a little-endian length, a detached PKCS#7 signature in DER of everything before
the block, ``MCPB_SIG_END``); it is checked with ``openssl cms`` against the system's certificates.
Every problem is a :class:`BundleError` that says what is wrong; nothing is unpacked here.
"""

from __future__ import annotations

import io
import shutil
import stat
import struct
import subprocess
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from elftia_desktop.core.config_store import describe_validation_error
from elftia_desktop.core.errors import JsonInputError
from elftia_desktop.core.json_input import parse_json_text
from elftia_desktop.registry.errors import BundleError

SUPPORTED_MANIFEST_VERSIONS = ("0.1", "0.2", "0.3", "0.4")
MAX_BUNDLE_BYTES = 512 * 1024 * 1024
MAX_UNPACKED_BYTES = 2 * 1024 * 1024 * 1024
SIG_HEADER = b"MCPB_SIG_V1"
SIG_FOOTER = b"MCPB_SIG_END"
SignatureState = Literal["unsigned", "verified", "untrusted", "invalid"]


class _Model(BaseModel):
    """snake_case like the manifest; unknown keys kept (newer manifests)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)


class Author(_Model):
    """Who made the bundle."""

    name: str = ""
    email: str | None = None
    url: str | None = None


class McpConfig(_Model):
    """How to start the server; values may use ``${__dirname}``, ``${user_config.KEY}``, ``${HOME}`` ..."""

    command: str
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    platform_overrides: dict[str, dict[str, Any]] = Field(default_factory=dict)


class BundleServer(_Model):
    """The ``server`` block."""

    type: Literal["node", "python", "uv", "binary"]
    entry_point: str = ""
    mcp_config: McpConfig | None = None


class UserConfigOption(_Model):
    """One setting the user gives at install (``user_config``)."""

    type: Literal["string", "number", "boolean", "directory", "file"]
    title: str = ""
    description: str = ""
    required: bool = False
    default: Any = None
    multiple: bool = False
    sensitive: bool = False
    min: float | None = None
    max: float | None = None


class NamedItem(_Model):
    """A tool or prompt the manifest declares."""

    name: str
    description: str = ""


class Compatibility(_Model):
    """Where it runs: ``platforms`` (darwin, win32, linux) and ``runtimes`` (``{"node": ">=18"}``)."""

    platforms: list[str] = Field(default_factory=list)
    runtimes: dict[str, str] = Field(default_factory=dict)


class Manifest(_Model):
    """``manifest.json``."""

    manifest_version: str
    name: str = Field(min_length=1)
    version: str = Field(min_length=1)
    description: str = ""
    display_name: str | None = None
    author: Author = Field(default_factory=Author)
    server: BundleServer
    tools: list[NamedItem] = Field(default_factory=list)
    prompts: list[NamedItem] = Field(default_factory=list)
    user_config: dict[str, UserConfigOption] = Field(default_factory=dict)
    compatibility: Compatibility = Field(default_factory=Compatibility)


@dataclass(frozen=True)
class Signature:
    """Whether a bundle is signed, and by whom."""

    state: SignatureState
    signer: str | None = None
    detail: str = ""

    @property
    def text(self) -> str:
        """One line for people."""
        return {
            "unsigned": "Not signed",
            "verified": f"Signed by {self.signer} (verified)",
            "untrusted": f"Signed by {self.signer}, but the certificate is not trusted on this computer",
            "invalid": f"The signature does not match the bundle's content ({self.detail})",
        }[self.state]


@dataclass
class Bundle:
    """A read bundle: its manifest, its zip content (without a signature block) and its signature."""

    path: Path
    manifest: Manifest
    content: bytes
    signature: Signature


def read_bundle(path: Path) -> Bundle:
    """Open and check a ``.mcpb`` file (zip, safe member paths, manifest); nothing is written."""
    try:
        size = path.stat().st_size
        if size > MAX_BUNDLE_BYTES:
            raise BundleError(f"{path.name} is {size // (1024 * 1024)} MB; bundles up to 512 MB are accepted")
        data = path.read_bytes()
    except OSError as exc:
        raise BundleError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    content, pkcs7 = split_signature(data)
    try:
        archive = zipfile.ZipFile(io.BytesIO(content))
    except zipfile.BadZipFile:
        raise BundleError(f"{path.name} is not a .mcpb bundle: it is not a zip file") from None
    with archive:
        check_members(archive, path.name)
        manifest = _manifest_of(archive, path.name)
    return Bundle(path, manifest, content, check_signature(content, pkcs7))


def split_signature(data: bytes) -> tuple[bytes, bytes | None]:
    """(content, PKCS#7 DER) when the file ends with a signature block, else (data, None)."""
    if not data.endswith(SIG_FOOTER):
        return data, None
    start = data.rfind(SIG_HEADER)
    if start < 0:
        return data, None
    offset = start + len(SIG_HEADER)
    (length,) = struct.unpack("<I", data[offset : offset + 4])
    pkcs7 = data[offset + 4 : offset + 4 + length]
    if offset + 4 + length + len(SIG_FOOTER) != len(data):
        return data[:start], b""
    return data[:start], pkcs7


def check_members(archive: zipfile.ZipFile, label: str) -> None:
    """Refuse absolute paths, ``..``, drive letters, links, and more than 2 GB unpacked."""
    total = 0
    for info in archive.infolist():
        parts = PurePosixPath(info.filename.replace("\\", "/")).parts
        if info.filename.startswith(("/", "\\")) or ".." in parts or (parts and ":" in parts[0]):
            raise BundleError(f"{label}: entry {info.filename!r} points outside the bundle folder; refused")
        if stat.S_ISLNK(info.external_attr >> 16):
            raise BundleError(f"{label}: entry {info.filename!r} is a symbolic link; refused")
        total += info.file_size
        if total > MAX_UNPACKED_BYTES:
            raise BundleError(f"{label}: unpacks to more than 2 GB; refused")


def _manifest_of(archive: zipfile.ZipFile, label: str) -> Manifest:
    try:
        raw = archive.read("manifest.json")
    except KeyError:
        raise BundleError(f"{label} has no manifest.json at its top") from None
    try:
        data = parse_json_text(raw.decode("utf-8", errors="replace"), f"{label}: manifest.json")
    except JsonInputError as exc:
        raise BundleError(str(exc)) from exc
    if not isinstance(data, dict):
        raise BundleError(f"{label}: manifest.json is not a JSON object")
    version = data.get("manifest_version", data.get("dxt_version"))
    if version not in SUPPORTED_MANIFEST_VERSIONS:
        supported = ", ".join(SUPPORTED_MANIFEST_VERSIONS)
        raise BundleError(f"{label}: manifest_version {version!r} is not supported (supported: {supported})")
    try:
        return Manifest.model_validate(data | {"manifest_version": version})
    except ValidationError as exc:
        raise BundleError(f"{label}: manifest.json: {describe_validation_error(exc)}") from exc


def check_signature(content: bytes, pkcs7: bytes | None) -> Signature:
    """Verify a detached PKCS#7 signature of ``content`` with ``openssl cms`` (blocking: call off the loop)."""
    if pkcs7 is None:
        return Signature("unsigned")
    if not pkcs7:
        return Signature("invalid", detail="the signature block is malformed")
    openssl = shutil.which("openssl")
    if openssl is None:
        return Signature("invalid", detail="openssl is not installed, so the signature cannot be checked")
    with tempfile.TemporaryDirectory(prefix="elftia-mcpb-") as tmp:
        content_file, sig_file = Path(tmp) / "content", Path(tmp) / "sig.der"
        content_file.write_bytes(content)
        sig_file.write_bytes(pkcs7)
        base = [openssl, "cms", "-verify", "-binary", "-inform", "DER", "-in", str(sig_file)]
        base += ["-content", str(content_file), "-purpose", "any", "-out", str(Path(tmp) / "out")]
        signer = _signer(openssl, sig_file)
        if _run(base) == 0:
            return Signature("verified", signer)
        if _run([*base, "-noverify"]) == 0:
            return Signature("untrusted", signer)
    return Signature("invalid", signer, "the content was changed after signing, or the block is damaged")


def _run(argv: list[str]) -> int:
    return subprocess.run(argv, capture_output=True, timeout=30, check=False).returncode


def _signer(openssl: str, sig_file: Path) -> str | None:
    out = subprocess.run(
        [openssl, "pkcs7", "-inform", "DER", "-in", str(sig_file), "-print_certs", "-noout"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    ).stdout
    for line in out.splitlines():
        if line.startswith("subject="):
            subject = line.removeprefix("subject=").strip()
            for part in subject.split(","):
                key, _, value = part.strip().partition("=")
                if key.strip() == "CN":
                    return value.strip()
            return subject
    return None
