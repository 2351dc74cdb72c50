"""``.mcpb`` bundles built in Python to the published manifest spec (MCPB 0.1–0.4), optionally signed.

The default bundle is a ``python`` server (an MCP server written with the SDK, in ``server/main.py``)
with a sensitive ``api_key`` (env), a multi-valued ``folders`` setting (arguments) and a
``platform_overrides`` entry for Windows. ``sign_bundle`` appends the MCPB signature block
(``MCPB_SIG_V1`` + length + detached PKCS#7 DER + ``MCPB_SIG_END``) made with a self-signed certificate.
"""

from __future__ import annotations

import datetime
import hashlib
import io
import json
import struct
import sys
import zipfile
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import pkcs7
from cryptography.x509.oid import NameOID

SERVER_SOURCE = '''\
import os
import sys

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

mcp = MCPServer("bundled", version="1.0.0")


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True))
def whoami() -> str:
    """Say which settings the server got."""
    key = os.environ.get("API_KEY", "")
    return f"key={'set' if key else 'missing'} len={len(key)} folders={sys.argv[1:]}"


if __name__ == "__main__":
    mcp.run()
'''


def manifest(version: str = "0.3", **changes: Any) -> dict[str, Any]:
    """A manifest of the given spec version (0.1 uses ``dxt_version``)."""
    data: dict[str, Any] = {
        "name": "bundled-notes",
        "display_name": "Bundled Notes",
        "version": "1.4.0",
        "description": "A bundled Python server",
        "author": {"name": "Ada Example", "email": "ada@example.com"},
        "server": {
            "type": "python",
            "entry_point": "server/main.py",
            "mcp_config": {
                "command": sys.executable,
                "args": ["${__dirname}/server/main.py", "${user_config.folders}"],
                "env": {"API_KEY": "${user_config.api_key}", "PYTHONUNBUFFERED": "1"},
                "platform_overrides": {"win32": {"command": "python.exe"}},
            },
        },
        "tools": [{"name": "whoami", "description": "Say which settings the server got"}],
        "user_config": {
            "api_key": {"type": "string", "title": "API key", "sensitive": True, "required": True},
            "folders": {"type": "directory", "title": "Folders", "multiple": True, "default": ["${HOME}/notes"]},
        },
        "compatibility": {"platforms": ["darwin", "win32", "linux"], "runtimes": {"python": ">=3.10"}},
    }
    data["dxt_version" if version == "0.1" else "manifest_version"] = version
    return data | changes


def build_bundle(path: Path, data: dict[str, Any] | None = None, files: dict[str, str] | None = None) -> Path:
    """Write a bundle zip with ``manifest.json`` and ``files`` (default: the Python server)."""
    members = {"server/main.py": SERVER_SOURCE} if files is None else files
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.json", json.dumps(manifest() if data is None else data))
        for name, text in members.items():
            archive.writestr(name, text)
    return path


def sha256_of(path: Path) -> str:
    """The file's SHA-256, as ``fileSha256`` publishes it."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def make_certificate(
    common_name: str, issuer: tuple[x509.Certificate, rsa.RSAPrivateKey] | None = None, *, ca: bool = False
) -> tuple[x509.Certificate, rsa.RSAPrivateKey]:
    """A certificate and its key: self-signed, or issued by ``issuer``."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(issuer[0].subject if issuer else name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    return builder.sign(issuer[1] if issuer else key, hashes.SHA256()), key


def sign_bundle(
    path: Path,
    common_name: str = "Ada Example Signing",
    issuer: tuple[x509.Certificate, rsa.RSAPrivateKey] | None = None,
) -> None:
    """Append a signature block made with a fresh certificate (self-signed unless ``issuer`` is given)."""
    cert, key = make_certificate(common_name, issuer)
    content = path.read_bytes()
    signature = (
        pkcs7.PKCS7SignatureBuilder()
        .set_data(content)
        .add_signer(cert, key, hashes.SHA256())
        .sign(serialization.Encoding.DER, [pkcs7.PKCS7Options.DetachedSignature, pkcs7.PKCS7Options.Binary])
    )
    path.write_bytes(content + b"MCPB_SIG_V1" + struct.pack("<I", len(signature)) + signature + b"MCPB_SIG_END")


def zip_bytes(members: dict[str, str]) -> bytes:
    """A zip of ``members`` in memory (for hostile bundles)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return buffer.getvalue()
