from __future__ import annotations

import pytest

from learn.redaction.redact import redact

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


# -- passwords, hashes, headers, connection strings (issue 10, item 17) ------------------
# Rules chosen, and why:
# - A password label (`password`, `passwd`, `passphrase`, `pwd`, and names ending so)
#   followed by `:`/`=` takes the rest of its line when that rest reads as a passphrase
#   (2-8 words, none of them a function word such as "the", "must", "every"): a
#   passphrase has spaces, and taking only its first word would leave the rest in clear.
# - Otherwise the label takes one value. After `: ` in prose, a plain lower-case word
#   followed by more words is the sentence going on ("reset password: complete, moving
#   on"), not a value, and stays; a lone word at the end of the line is a value.
# - "password is X" takes X only when X looks chosen (6+ chars, digits, capitals or
#   symbols), so "the password is wrong" stays.
# - An Authorization header takes its credential at any length, but not a bare word
#   ("an Authorization: Bearer header") or a `$TOKEN` reference.
# - crypt(3) hashes are taken whole up to `:`, so /etc/shadow fields around them stay.
PASSWORD = "Hunter2" + "Pass"
SHA512_CRYPT = "$6$" + "rounds=5000$saltsalt$" + "Hx0qW3o0Yy1zQz7q8u1W2e3r4t5y6u7i8o9p0aSdFgHjKlZxCvBnM.12345678"
YESCRYPT = "$y$" + "j9T$F5Jx5fExrKuJdjYXs6.7k0$" + "Ab1cD2eF3gH4iJ5kL6mN7oP8qR9sT0uV1wX2yZ3aB4c"
BCRYPT = "$2b$" + "12$" + "KIXQJ1Vb4q6v3gk1s8Xx0O6E2sH3mNqT9wYzR1aB2cD3eF4gH5iJ6"
MD5_CRYPT = "$1$" + "saltsalt$" + "qjXMvbEw8oaL.CzflDugX/"
ARGON2 = "$argon2id$" + "v=19$m=65536,t=3,p=4$c29tZXNhbHQ$" + "RdescudvJCsgt3ub+b+dWRWJTmaaJObG"
BASIC = "dXNlcjpw" + "YXNzd29yZA=="

PASSWORD_CASES = [
    # (typed, redacted) — the whole expected output, so nothing around the secret is eaten.
    ("Password: hunter2", "Password: [REDACTED:password]"),
    ("Password: correct horse battery staple", "Password: [REDACTED:password]"),
    ("the box login, Password: correct horse battery staple", "the box login, Password: [REDACTED:password]"),
    ("passwd: s3cret99", "passwd: [REDACTED:password]"),
    ("- DB password: hunter", "- DB password: [REDACTED:password]"),
    (f"my password is {PASSWORD}, keep it out of git", "my password is [REDACTED:password], keep it out of git"),
    (f"root:{SHA512_CRYPT}:19000:0:99999:7:::", "root:[REDACTED:password-hash]:19000:0:99999:7:::"),
    (f"hash {YESCRYPT} in shadow", "hash [REDACTED:password-hash] in shadow"),
    (f"admin {BCRYPT}", "admin [REDACTED:password-hash]"),
    (f"alice:{MD5_CRYPT}", "alice:[REDACTED:password-hash]"),
    (f"stored as {ARGON2}.", "stored as [REDACTED:password-hash]."),
    ("Authorization: Bearer abc.def", "Authorization: Bearer [REDACTED:authorization]"),
    (f"-H 'Authorization: Basic {BASIC}'", "-H 'Authorization: Basic [REDACTED:authorization]'"),
    ('{"authorization": "token ghp_short1"}', '{"authorization": "token [REDACTED:authorization]"}'),
    ("Proxy-Authorization: Basic Zm9vOmJhcg", "Proxy-Authorization: Basic [REDACTED:authorization]"),
    ("postgres://admin:hunter2@db:5432/app", "postgres://admin:[REDACTED:password]@db:5432/app"),
    ("redis://:s3cretpw@localhost:6379/0", "redis://:[REDACTED:password]@localhost:6379/0"),
    (
        "Server=tcp:db;Database=app;User Id=sa;Password=Hunter2Pass;",
        "Server=tcp:db;Database=app;User Id=sa;Password=[REDACTED:password];",
    ),
    ("Data Source=db;User ID=u;Pwd=abc12345;", "Data Source=db;User ID=u;Pwd=[REDACTED:password];"),
    (
        "jdbc:mysql://db/app?user=root&password=s3cretpw&ssl=true",
        "jdbc:mysql://db/app?user=root&password=[REDACTED:password]&ssl=true",
    ),
    ('psql "host=db user=app password=s3cretpw"', 'psql "host=db user=app password=[REDACTED:password]"'),
    ("mysql -u root -pS3cretPass shop", "mysql -u root -p[REDACTED:password] shop"),
    ("mysqldump -uroot -p'two words' db", "mysqldump -uroot -p[REDACTED:password] db"),
    ("sshpass -p 'S3cret pass' ssh host", "sshpass -p [REDACTED:password] ssh host"),
    ("echo 'alice:S3cretPass' | chpasswd", "echo 'alice:[REDACTED:password]' | chpasswd"),
    ("echo 'N3wPass!' | sudo passwd --stdin bob", "echo '[REDACTED:password]' | sudo passwd --stdin bob"),
]


@pytest.mark.parametrize(("text", "expected"), PASSWORD_CASES)
def test_passwords_hashes_headers_and_connection_strings_are_redacted(text: str, expected: str) -> None:
    assert redact(text) == expected
    assert redact(expected) == expected  # idempotent: the marker matches no rule


@pytest.mark.parametrize(
    "text",
    [
        # Sentences about passwords: not one word of them is a password.
        "I forgot my password: the one for staging",
        "reset password: complete, moving on",
        "Password: must be at least 12 characters",
        "rotate the password policy: every 90 days",
        "the password is wrong",
        "never log a password, mask it",
        "password reset emails go out from noreply",
        # Placeholders and prompts, not values.
        "PASSWORD=${DB_PASSWORD}",
        "password: <your password>",
        "mysql -u root -p shop",
        "curl -H 'Authorization: Bearer $TOKEN' https://api.local",
        "add an Authorization: Bearer header to every request",
        "Password: ",
        # Dollar amounts and shell variables are not crypt hashes.
        "it costs $5 and $6 per seat",
        "echo $1 $2",
        # A URL with a port, not a password.
        "http://localhost:8080/path",
    ],
)
def test_text_about_passwords_is_left_whole(text: str) -> None:
    assert redact(text) == text


# A key shaped as AWS writes them (mixed case, digits, `/` and `+`), built so no
# scanner mistakes this file for one that holds a real key.
_AWS_SECRET = "Xk8pLm2/Qr7TzWv9+Ny4" + "Bc6Hd1Jf3Gs5Ka0EoPiU"
_COMMIT = "9fceb02d0ae598e95dc970b74767f19372d61af8"


@pytest.mark.parametrize(
    "text",
    [
        f"git checkout {_COMMIT} then staging user: {AWS_ID} / {_AWS_SECRET}",
        f"{_COMMIT}\n{AWS_ID} {_AWS_SECRET}",
        f"{_AWS_SECRET} {AWS_ID} {_AWS_SECRET[::-1]}",  # a key on each side of one id
    ],
)
def test_an_aws_secret_beside_its_id_is_redacted_whatever_comes_before(text: str) -> None:
    """A commit's hash before the id was matched as the key before it, kept (not a
    key), and took the id with it: the key after the id was never redacted."""
    out = redact(text)
    assert _AWS_SECRET not in out and _AWS_SECRET[::-1] not in out
    assert AWS_ID not in out
    assert _COMMIT in out or _COMMIT not in text  # a commit is not a key


def test_a_commit_beside_an_aws_id_is_kept() -> None:
    out = redact(f"{AWS_ID} was rotated in {_COMMIT}")
    assert _COMMIT in out and AWS_ID not in out
