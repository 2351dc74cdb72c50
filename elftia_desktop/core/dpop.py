"""DPoP (RFC 9449) proofs: one server's P-256 key pair and the ES256 JWTs it signs.

A proof is a JWT with the header ``{"typ": "dpop+jwt", "alg": "ES256", "jwk": <public key>}`` and the
claims ``jti`` (fresh each time), ``htm`` (the HTTP method), ``htu`` (the URL without query and
fragment), ``iat``, and, where they apply, ``nonce`` (the server's ``DPoP-Nonce``) and ``ath`` (the
SHA-256 of the access token it goes with). The private key is kept as PKCS#8 PEM text by the caller
(in the secrets vault); it is never logged.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from urllib.parse import urlsplit, urlunsplit

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

ALGORITHM = "ES256"
"""The one proof algorithm we sign with (every DPoP server must accept an ES256 key)."""


def b64url(data: bytes) -> str:
    """Base64url without padding (JOSE)."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def access_token_hash(token: str) -> str:
    """The ``ath`` claim of a proof sent with ``token``."""
    return b64url(hashlib.sha256(token.encode("ascii")).digest())


def target_uri(url: str) -> str:
    """The ``htu`` claim: the request URL without its query and fragment."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


class DpopKey:
    """A P-256 key pair that signs DPoP proofs."""

    def __init__(self, private_key: ec.EllipticCurvePrivateKey) -> None:
        if not isinstance(private_key.curve, ec.SECP256R1):
            raise ValueError("a DPoP key must be on the P-256 curve")
        self._key = private_key
        numbers = private_key.public_key().public_numbers()
        self.public_jwk = {
            "kty": "EC",
            "crv": "P-256",
            "x": b64url(numbers.x.to_bytes(32, "big")),
            "y": b64url(numbers.y.to_bytes(32, "big")),
        }

    @classmethod
    def generate(cls) -> DpopKey:
        """A new random key pair."""
        return cls(ec.generate_private_key(ec.SECP256R1()))

    @classmethod
    def from_pem(cls, pem: str) -> DpopKey:
        """The key pair of a stored PKCS#8 PEM private key (``ValueError`` if it is not one)."""
        try:
            key = serialization.load_pem_private_key(pem.encode("ascii"), password=None)
        except TypeError as exc:  # cryptography's answer to an encrypted key
            raise ValueError(f"the stored DPoP key cannot be read: {exc}") from exc
        if not isinstance(key, ec.EllipticCurvePrivateKey):
            raise ValueError("the stored DPoP key is not an elliptic-curve key")
        return cls(key)

    def to_pem(self) -> str:
        """The private key as PKCS#8 PEM text, for the secrets vault."""
        return self._key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode("ascii")

    def thumbprint(self) -> str:
        """The RFC 7638 JWK thumbprint (what a bound token's ``cnf.jkt`` names)."""
        canonical = json.dumps(self.public_jwk, sort_keys=True, separators=(",", ":")).encode()
        return b64url(hashlib.sha256(canonical).digest())

    def proof(self, method: str, url: str, nonce: str | None = None, access_token: str | None = None) -> str:
        """A fresh proof for one HTTP request (``access_token``: the token it is sent with, for ``ath``)."""
        header = {"typ": "dpop+jwt", "alg": ALGORITHM, "jwk": self.public_jwk}
        claims: dict[str, str | int] = {
            "jti": secrets.token_urlsafe(16),
            "htm": method.upper(),
            "htu": target_uri(url),
            "iat": int(time.time()),
        }
        if nonce is not None:
            claims["nonce"] = nonce
        if access_token is not None:
            claims["ath"] = access_token_hash(access_token)
        signing_input = f"{_segment(header)}.{_segment(claims)}".encode("ascii")
        r, s = decode_dss_signature(self._key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
        return f"{signing_input.decode('ascii')}.{b64url(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"


def _segment(value: object) -> str:
    return b64url(json.dumps(value, separators=(",", ":")).encode())
