"""Secret redaction: applied before any text is rendered for a model, cached, or stored.

Transcripts are full of secrets the user never meant to share with anyone: a
key pasted into a prompt to "just try it", an `.env` the agent cat'ed that then
failed, a database URL in a traceback. Everything learn sends to the model or
writes to disk goes through `redact` first, so a secret can leave the machine
only if no rule here recognises it.

Each secret is replaced by a stable marker (`[REDACTED:<kind>]`). Stable, not
random, because the same function runs over what the user typed (spoken text)
and over what the model saw (the rendered chunk): a quote that spans a redacted
key must still be found verbatim when it is checked. The function is
deterministic and idempotent (`redact(redact(x)) == redact(x)`): markers match
no rule, so text redacted when it was cached is unchanged when it is read back.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from typing import Final

MARKER_PREFIX: Final = "[REDACTED:"


def marker(kind: str) -> str:
    return f"{MARKER_PREFIX}{kind}]"


# (kind, pattern). Order matters: specific shapes before the generic assignment
# rule, so a key in `ANTHROPIC_API_KEY=sk-ant-…` is named for what it is.
_TOKEN_RULES: Final[tuple[tuple[str, re.Pattern[str]], ...]] = (
    # A PEM block, or its head when an excerpt was cut before the END line: a
    # half key is still a key.
    (
        "private-key",
        re.compile(
            r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:.*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|.*\Z)",
            re.S,
        ),
    ),
    ("anthropic-key", re.compile(r"(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{16,}")),
    (
        "openai-key",
        re.compile(r"(?<![A-Za-z0-9_-])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    ),
    ("github-token", re.compile(r"\b(?:ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{20,}")),
    ("github-token", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}")),
    ("gitlab-token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    ("npm-token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("huggingface-token", re.compile(r"\bhf_[A-Za-z0-9]{34,}\b")),
    ("aws-access-key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("slack-token", re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}")),
    ("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}")),
    ("stripe-key", re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}")),
    (
        "jwt",
        re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    ),
)

# Rules that keep a prefix (the name, the scheme and user) and replace only the value.
_AWS_SECRET_RE: Final = re.compile(
    r"(?i)(aws_secret_access_key[\"']?\s*[:=]\s*[\"']?)(?!\[REDACTED)[A-Za-z0-9/+=]{40}"
)
_BEARER_RE: Final = re.compile(r"(?i)(\bbearer\s+)(?!\[REDACTED)[A-Za-z0-9._~+/-]{20,}=*")
# scheme://user:password@host; the password stops at whitespace, `@` or `/`.
_URL_PASSWORD_RE: Final = re.compile(
    r"(\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@\[\]]+:)(?!\[REDACTED)([^\s@/]+)(@)"
)

# Names that announce a secret. Matched against the whole name, case-insensitively,
# so `GITHUB_TOKEN`, `apiKey`, `db_password` and `client-secret` all count.
_SECRET_NAME_RE: Final = re.compile(r"(?i)(?:key|token|secret|password|passwd|pwd|credentials?)$")
_PASSWORD_NAME_RE: Final = re.compile(r"(?i)(?:password|passwd|pwd)$")

# KEY=value, KEY: value, export KEY="value", --key=value.
_ASSIGN_RE: Final = re.compile(
    r"(?P<name>(?<![A-Za-z0-9_.])[A-Za-z_][A-Za-z0-9_.-]*)"
    r"(?P<sep>[ \t]*[:=][ \t]*)"
    r"(?P<q>[\"']?)"
    r"(?P<val>[^\s\"'`,;(){}<>]+)"
)
# "key": "value" (JSON, or a Python dict literal).
_QUOTED_ASSIGN_RE: Final = re.compile(
    r"(?P<nq>[\"'])(?P<name>[A-Za-z_][A-Za-z0-9_.-]*)(?P=nq)"
    r"(?P<sep>\s*:\s*)"
    r"(?P<q>[\"'])"
    r"(?P<val>[^\"'\s]+)"
    r"(?P=q)"
)

# Below these, a value is a word or a placeholder, not a credential. Measured by
# eye on config files: real tokens are >=16 chars of >=2 character classes with
# ~4 bits/char; identifiers like `my_token_name` sit near 3.0 with one class.
_MIN_SECRET_CHARS: Final = 12
_MIN_ENTROPY_BITS: Final = 3.0
_MIN_PASSWORD_CHARS: Final = 6


def _entropy(value: str) -> float:
    counts = Counter(value)
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _classes(value: str) -> int:
    return sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            any(c.isdigit() for c in value),
        )
    )


def _is_placeholder(value: str) -> bool:
    # An env reference, a template hole or a marker is not the secret itself.
    return value.startswith(("$", "%", "<", "{", "[REDACTED", "*")) or set(value) <= {"x", "X", "*", "."}


def _looks_secret(name: str, value: str) -> bool:
    if _is_placeholder(value) or not _SECRET_NAME_RE.search(name):
        return False
    if _PASSWORD_NAME_RE.search(name):
        return len(value) >= _MIN_PASSWORD_CHARS
    return (
        len(value) >= _MIN_SECRET_CHARS
        and _classes(value) >= 2
        and _entropy(value) >= _MIN_ENTROPY_BITS
    )


def _assignment(m: re.Match[str]) -> str:
    name, value = m.group("name"), m.group("val")
    if not _looks_secret(name, value):
        return m.group(0)
    kind = "password" if _PASSWORD_NAME_RE.search(name) else "secret"
    start, end = m.span("val")
    whole_start = m.start(0)
    text = m.group(0)
    return text[: start - whole_start] + marker(kind) + text[end - whole_start :]


def _keep_prefix(kind: str) -> Callable[[re.Match[str]], str]:
    def replace(m: re.Match[str]) -> str:
        suffix = m.group(3) if m.lastindex and m.lastindex >= 3 else ""
        return m.group(1) + marker(kind) + suffix

    return replace


def redact(text: str) -> str:
    """`text` with every recognised secret replaced by `[REDACTED:<kind>]`."""
    if not text:
        return text
    for kind, pattern in _TOKEN_RULES:
        text = pattern.sub(marker(kind), text)
    text = _AWS_SECRET_RE.sub(_keep_prefix("aws-secret-key"), text)
    text = _BEARER_RE.sub(_keep_prefix("bearer-token"), text)
    text = _URL_PASSWORD_RE.sub(_keep_prefix("password"), text)
    text = _QUOTED_ASSIGN_RE.sub(_assignment, text)
    return _ASSIGN_RE.sub(_assignment, text)
