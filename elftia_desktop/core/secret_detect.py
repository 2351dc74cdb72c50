"""Secrets recognised by their value: well-known token shapes, URL credentials, high-entropy strings.

A variable named ``CONFIG`` holding ``ghp_…`` is as secret as one named ``GITHUB_TOKEN``. The
vault asks :func:`secret_kind` about every env and header value, and :func:`url_secrets` about
every URL (``https://alice:pw@host/…``, ``?api_key=…``), so what looks secret goes to the keyring
and the file keeps a ``${secret:NAME}`` reference. :func:`redact` hides known values in text.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from urllib.parse import parse_qsl, quote, urlsplit, urlunsplit

TOKEN_SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("GitHub token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{60,})")),
    ("Anthropic API key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}")),
    ("OpenAI API key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}")),
    ("Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("Slack webhook", re.compile(r"hooks\.slack\.com/services/[A-Za-z0-9/]+")),
    ("AWS access key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b")),
    ("Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}")),
    ("Google OAuth token", re.compile(r"\bya29\.[0-9A-Za-z_-]{20,}")),
    ("Stripe key", re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}")),
    ("JSON Web Token", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    ("private key", re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----")),
    ("GitLab token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    ("Hugging Face token", re.compile(r"\bhf_[A-Za-z0-9]{30,}")),
)
"""(what, pattern) of token shapes recognised anywhere in a value."""

SECRET_QUERY_NAMES = re.compile(
    r"^(?:.*(?:key|token|secret|passw(?:or)?d|pwd|auth|credential|session|signature)|sig|apikey)$", re.I
)
"""Query parameter names whose values are secret (``api_key``, ``access_token``, ``sig`` ...)."""

_ENTROPY_CANDIDATE = re.compile(r"[A-Za-z0-9+/=_\-.~]{32,}")
MIN_ENTROPY_BITS = 4.2
"""Shannon entropy per character above which a long mixed token counts as a random secret."""


def secret_kind(value: str) -> str | None:
    """What secret ``value`` looks like (``GitHub token`` …), or None when it looks ordinary."""
    if not value or value.startswith("${"):
        return None
    for what, pattern in TOKEN_SHAPES:
        if pattern.search(value):
            return what
    if urlsplit(value).password if "://" in value else False:
        return "password in a URL"
    return "random-looking token" if _high_entropy(value) else None


def _high_entropy(value: str) -> bool:
    """A single 32+ character token of letters and digits with the entropy of random data (not a path)."""
    if not _ENTROPY_CANDIDATE.fullmatch(value) or value.startswith(("/", "~", ".", "-")) or value.count("/") > 2:
        return False
    if not (re.search(r"[A-Za-z]", value) and re.search(r"[0-9]", value)):
        return False
    counts = Counter(value)
    entropy = -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())
    return entropy >= MIN_ENTROPY_BITS


def url_secrets(url: str) -> tuple[str, dict[str, str]]:
    """``url`` with its credentials replaced by ``${secret:NAME}``, and ``{NAME: value}`` taken out.

    The password of the userinfo becomes ``URL_PASSWORD``; a secret-looking query parameter
    ``api_key`` becomes ``URL_QUERY_API_KEY``. A URL without credentials comes back unchanged.
    """
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return url, {}
    taken: dict[str, str] = {}
    netloc = parts.netloc
    if password and not password.startswith("${"):
        taken["URL_PASSWORD"] = password
        user = netloc.rpartition("@")[0].partition(":")[0]
        netloc = f"{user}:${{secret:URL_PASSWORD}}@{netloc.rpartition('@')[2]}"
    query = parts.query
    if query:
        pairs = []
        for key, value in parse_qsl(query, keep_blank_values=True):
            if value and not value.startswith("${") and (SECRET_QUERY_NAMES.match(key) or secret_kind(value)):
                name = "URL_QUERY_" + re.sub(r"[^A-Za-z0-9]", "_", key).upper()
                taken[name] = value
                value = f"${{secret:{name}}}"
            pairs.append(f"{quote(key, safe='')}={value if value.startswith('${') else quote(value, safe='')}")
        query = "&".join(pairs) if taken else query
    if not taken:
        return url, {}
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment)), taken


def redact(text: str, values: Iterable[str] = ()) -> str:
    """``text`` with the given values and every recognised token shape replaced by ``***``."""
    for value in sorted({v for v in values if len(v) >= 4}, key=len, reverse=True):
        text = text.replace(value, "***")
    for _, pattern in TOKEN_SHAPES:
        text = pattern.sub("***", text)
    return _URL_PASSWORD.sub(r"\1***@", text)


_URL_PASSWORD = re.compile(r"(://[^\s:/@]+:)[^\s@/]+@")
