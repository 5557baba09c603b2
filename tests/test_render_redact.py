from __future__ import annotations

import pytest

from learn.render.redact import redact

# Assembled at run time so no literal secret-shaped string sits in the repo.
ANTHROPIC = "sk-ant-api03-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z" * 2
OPENAI = "sk-proj-" + "Q1w2E3r4T5y6U7i8O9p0AaSsDdFfGgHh"
OPENAI_OLD = "sk-" + "Zx9Cv8Bn7Mm6Ll5Kk4Jj3Hh2Gg1"
GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
GITHUB_PAT = "github_pat_" + "11ABCDEFG0" + "x" * 30 + "Y9z8"
AWS_ID = "AKIA" + "IOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY"
SLACK = "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOp"
GOOGLE = "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
STRIPE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
JWT = "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0" + ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7x9\nq2w3e4r5\n-----END RSA PRIVATE KEY-----"

CASES = [
    (f"use {ANTHROPIC} for now", ANTHROPIC, "[REDACTED:anthropic-key]"),
    (f"key {OPENAI}.", OPENAI, "[REDACTED:openai-key]"),
    (f"key {OPENAI_OLD}", OPENAI_OLD, "[REDACTED:openai-key]"),
    (f"token {GITHUB}", GITHUB, "[REDACTED:github-token]"),
    (f"token {GITHUB_PAT}", GITHUB_PAT, "[REDACTED:github-token]"),
    (f"id {AWS_ID} ok", AWS_ID, "[REDACTED:aws-access-key]"),
    (f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET, "[REDACTED:aws-secret-key]"),
    (f"slack {SLACK}", SLACK, "[REDACTED:slack-token]"),
    (f"maps {GOOGLE}", GOOGLE, "[REDACTED:google-api-key]"),
    (f"pay {STRIPE}", STRIPE, "[REDACTED:stripe-key]"),
    (f"Authorization: Bearer {JWT}", JWT, "[REDACTED:"),
    (f"cookie {JWT}", JWT, "[REDACTED:jwt]"),
    (f"before\n{PEM}\nafter", "MIIEowIBAAKCAQEA7x9", "[REDACTED:private-key]"),
    ("postgres://admin:hunter2pass@db.local:5432/x", "hunter2pass", "[REDACTED:password]"),
    ("export MY_SERVICE_TOKEN=Zq8rT2vX9kLm4Np7", "Zq8rT2vX9kLm4Np7", "[REDACTED:secret]"),
    ('{"client_secret": "aB3dE6gH9jK2mN5p"}', "aB3dE6gH9jK2mN5p", "[REDACTED:secret]"),
    ("DB_PASSWORD=correcthorse", "correcthorse", "[REDACTED:password]"),
    ("apiKey: 'Xk29fLq0Zp7vR3tY'", "Xk29fLq0Zp7vR3tY", "[REDACTED:secret]"),
    ("mysql --password=s3cretpw -u root", "s3cretpw", "[REDACTED:password]"),
    ("glpat-" + "xYz123AbC456dEf789gHi0", "xYz123AbC456dEf789gHi0", "[REDACTED:gitlab-token]"),
    ("npm_" + "a" * 20 + "B1" * 8, "a" * 20 + "B1" * 8, "[REDACTED:npm-token]"),
    ("hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh", "AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh", "[REDACTED:huggingface-token]"),
]


@pytest.mark.parametrize(("text", "secret", "marker"), CASES)
def test_each_secret_kind_is_replaced_by_a_marker(text: str, secret: str, marker: str) -> None:
    out = redact(text)
    assert secret not in out
    assert marker in out


@pytest.mark.parametrize(("text", "secret", "marker"), CASES)
def test_redaction_is_idempotent(text: str, secret: str, marker: str) -> None:
    once = redact(text)
    assert redact(once) == once


def test_truncated_private_key_block_is_still_redacted() -> None:
    out = redact("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA")
    assert "b3BlbnNzaC1rZXktdjEAAAAA" not in out
    assert out == "[REDACTED:private-key]"


def test_surrounding_text_is_kept_verbatim() -> None:
    assert redact(f"Please stop, {GITHUB} is mine.") == "Please stop, [REDACTED:github-token] is mine."


@pytest.mark.parametrize(
    "text",
    [
        "always run the linter before committing",
        "sort_key=name",
        "TOKEN=$GITHUB_TOKEN",
        "password=${DB_PASSWORD}",
        "api_key = os.environ['API_KEY']",
        "max_tokens=4096",
        "see https://example.com:8080/path and user@example.com",
        "the token is in the vault",
        "monkey=banana",
        "MY_TOKEN=<your token here>",
    ],
)
def test_ordinary_text_is_untouched(text: str) -> None:
    assert redact(text) == text


def test_deterministic_markers_so_quotes_still_match() -> None:
    assert redact(f"a {ANTHROPIC} b") == redact(f"a {ANTHROPIC} b")
    assert redact(f"x {ANTHROPIC}") == "x [REDACTED:anthropic-key]"


def test_long_text_is_fast() -> None:
    import time

    text = ("a=b key=value token: the quick brown fox https://x.org/a?b=c " * 40_000)
    start = time.perf_counter()
    assert redact(text) == text
    assert time.perf_counter() - start < 5.0
