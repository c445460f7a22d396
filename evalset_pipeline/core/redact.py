"""One redaction helper for every boundary where text is persisted or printed.

A model endpoint can echo what it was sent (the Authorization header, the key in an error
message), and whatever it replies flows into rationales, the call cache, golden snapshots,
Dagster's event log and the terminal. So text is scrubbed where it enters (model replies and
client errors) and again where it leaves (the call cache, error messages, the CLI): the
configured key's value wherever it appears, and anything shaped like a bearer token or an
OpenAI-style `sk-…` key.
"""

from __future__ import annotations

import os
import re
import threading
from typing import Any

REDACTED = "[redacted]"
_TOKENS = re.compile(r"\bBearer\s+[A-Za-z0-9._~+/=\-]+|\bsk-[A-Za-z0-9_\-]{6,}", re.I)
_MIN_SECRET = 6  # shorter values would redact ordinary words

_lock = threading.Lock()
_secret_envs: set[str] = {"OPENAI_API_KEY"}


def register_secret_env(name: str) -> None:
    """Declare an environment variable whose value must never be persisted or printed."""
    with _lock:
        _secret_envs.add(name)


def _secrets() -> list[str]:
    with _lock:
        names = list(_secret_envs)
    values = {os.environ.get(n, "") for n in names}
    return sorted((v for v in values if len(v) >= _MIN_SECRET), key=len, reverse=True)


def redact(text: str) -> str:
    """`text` with configured secrets and token-shaped strings replaced by [redacted]."""
    if not text:
        return text
    for secret in _secrets():
        text = text.replace(secret, REDACTED)
    return _TOKENS.sub(REDACTED, text)


def redact_any(value: Any) -> Any:
    """Redact every string inside dicts / lists / tuples (other values unchanged)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: redact_any(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(redact_any(v) for v in value)
    return value
