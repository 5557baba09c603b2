"""Issue 20: each secret shape of the corpus is redacted, each decoy survives, and a
value given in answer to the agent asking for a password goes too."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from secrets_corpus import (
    ASKED_ANSWER,
    ASKED_PASSPHRASE,
    ASKED_PW,
    ASKED_QUESTION,
    ASKED_SINGLE_ANSWER,
    ASKED_SINGLE_QUESTION,
    DECOYS,
    SECRETS,
)

from learn.redaction.redact import MARKER_PREFIX, redact
from learn.redaction.scanner import scanner_spans
from learn.secret_answers import MARKER, redact_answer


@pytest.mark.parametrize(("name", "line", "secret"), SECRETS, ids=[s[0] for s in SECRETS])
def test_every_secret_shape_is_redacted(name: str, line: str, secret: str) -> None:
    out = redact(line)
    assert secret not in out
    assert MARKER_PREFIX in out
    assert redact(out) == out


@pytest.mark.parametrize(("name", "line", "keep"), DECOYS, ids=[d[0] for d in DECOYS])
def test_decoys_are_kept(name: str, line: str, keep: str) -> None:
    assert keep in redact(line)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("CREATE ROLE app LOGIN ENCRYPTED PASSWORD 'Zq9!x7Lm';",
         "CREATE ROLE app LOGIN ENCRYPTED PASSWORD '[REDACTED:password]';"),
        ("GRANT ALL ON *.* TO 'u'@'%' IDENTIFIED BY 'Zq9!x7Lm';",
         "GRANT ALL ON *.* TO 'u'@'%' IDENTIFIED BY '[REDACTED:password]';"),
        ("hashed = bcrypt.hashpw(b'Zq9!x7Lm', bcrypt.gensalt())",
         "hashed = bcrypt.hashpw(b'[REDACTED:password]', bcrypt.gensalt())"),
        ("redis-cli -h cache -a Zq9x7Lm2 ping", "redis-cli -h cache -a [REDACTED:password] ping"),
        ("wget --password Zq9x7Lm2 https://x", "wget --password [REDACTED:password] https://x"),
        ("curl --user deploy:Zq9x7Lm2 https://x", "curl --user deploy:[REDACTED:password] https://x"),
        ("machine h\n  login u\n  password Zq9x7Lm2", "machine h\n  login u\n  password [REDACTED:password]"),
        ("https://u:p@ss@w0rd@host/x", "https://u:[REDACTED:password]@host/x"),
        ("Passwort ist Zq9x7Lm2, bitte merken", "Passwort ist [REDACTED:password], bitte merken"),
        ("密码是Zq9x7Lm2", "密码是[REDACTED:password]"),
    ],
)
def test_sql_shell_and_label_forms_keep_the_line_readable(line: str, expected: str) -> None:
    assert redact(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "PGPASSWORD=$PGPASSWORD pg_dump app",
        "curl -u \"$USER:$TOKEN\" https://api.internal",
        "sshpass -p \"$SSH_PASS\" ssh box",
        "mysql -u root -p\"$MYSQL_ROOT_PASSWORD\"",
        "api_key: ${{ secrets.API_KEY }}",
        "token = settings.GITHUB_TOKEN",
        "const secret = config.get('jwt.secret')",
        "password = getpass.getpass()",
        "SECRET_KEY=changeme",
        "OPENAI_API_KEY=your-openai-api-key-here",
        "Passwort: bitte im Tresor nachsehen",
        "image sha256:" + "a" * 64,
        "ETag: \"33a64df551425fcc55e4d42a148795d9f25f89d4\"",
        # Lines of library code and docs the earlier rules (or a first cut of these) took:
        "A user in the organization, identified by their id and email address.",
        "_custom_auth: httpx.Auth | None = None",
        "util._assertion_pass = ihook.pytest_assertion_pass",
        "const password = 'Password used to generate key';",
        "pip config set global.index-url https://username:password@pypi.company.com/simple",
        "const key = readFileSync('./server-key.pem');",
        "credential = DefaultAzureCredential()",
        "token: Optional[str]",
        "password: str | None = None,",
        "credentials: AccessTokenProvider | None",
        "password=parts['password'],",
        "PWD=/home/dev/shop",
        'password = click.prompt("Password", hide_input=True)',
        "inject `Authorization: Bearer` auth",
    ],
)
def test_references_placeholders_and_hashes_are_kept(line: str) -> None:
    assert redact(line) == line


def test_the_maintained_rule_set_finds_what_it_knows() -> None:
    # A vendor only the library has a rule for (Mailchimp), found through it.
    key = "0123456789abcdef" * 2 + "-us12"
    assert scanner_spans(f"mc {key}", frozenset({"-us"}))
    assert key not in redact(f"mailchimp {key}")


def test_numbered_answer_to_a_password_question_is_redacted() -> None:
    out = redact_answer(ASKED_QUESTION, ASKED_ANSWER)
    assert ASKED_PW not in out
    assert out == f"1. Skip for now\n2. {MARKER}\n3. 12 hour"


def test_single_reply_to_a_passphrase_question_is_redacted() -> None:
    assert redact_answer(ASKED_SINGLE_QUESTION, ASKED_SINGLE_ANSWER) == MARKER
    assert ASKED_PASSPHRASE not in redact_answer("パスワードを教えてください？", ASKED_PASSPHRASE)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("What is the database password?", "skip for now"),
        ("What is the database password?", "it is in 1password, use that"),
        ("Which token format do you want?", "JWT"),
        ("Should I run the migrations?", "Zq9x7Lm2"),  # no secret was asked for
        ("Should I add password reset to the login page?", "please"),  # about, not for, one
        ("Should I rotate the API token now?", "Zq9x7Lm2-release-12"),
        (ASKED_QUESTION, "1. yes\n2. use the one in .env\n3. 12 hour"),
    ],
)
def test_answers_that_give_no_secret_are_kept(question: str, answer: str) -> None:
    assert redact_answer(question, answer) == answer


def test_the_answer_marker_is_left_alone_by_redact() -> None:
    assert MARKER.startswith(MARKER_PREFIX)
    assert redact(f"1. Skip\n2. {MARKER}") == f"1. Skip\n2. {MARKER}"


_LINES = [line for _, line, _ in SECRETS] + [line for _, line, _ in DECOYS]
# Heads that make the next word a value (`IDENTIFIED BY curl` is a password): for the
# fixed-point property only.
_HEADS = ["password: ", "IDENTIFIED BY ", "curl -u a:", "密码：", "Bearer ", "note:", "=", "'", '"', "@", "://"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_LINES + _HEADS), st.text(max_size=8)), max_size=8))
def test_redaction_of_any_mix_is_a_fixed_point(parts: list[str]) -> None:
    # Pieces run together with a space, as words on a line are (glued with nothing,
    # `…7dcCREATE` is one token, and no rule can tell where the key ends).
    once = redact(" ".join(parts))
    assert redact(once) == once


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_LINES), st.text(max_size=6)), max_size=6))
def test_no_secret_survives_among_other_lines_and_noise(parts: list[str]) -> None:
    once = redact(" ".join(parts))
    for _, line, secret in SECRETS:
        if line in parts:
            assert secret not in once


def test_a_question_typed_after_the_agent_asked_for_a_key_is_kept() -> None:
    from secrets_corpus import ASKED_KEY_QUESTION, ASKED_KEY_REPLY_ZH, ASKED_NUMERIC_KEY

    assert redact_answer(ASKED_KEY_QUESTION, ASKED_KEY_REPLY_ZH) == ASKED_KEY_REPLY_ZH
    assert redact_answer(ASKED_KEY_QUESTION, "where do I find it?") == "where do I find it?"
    assert redact_answer(ASKED_KEY_QUESTION, ASKED_NUMERIC_KEY) == MARKER
    assert redact_answer(ASKED_KEY_QUESTION, "$WEATHER_API_KEY") == "$WEATHER_API_KEY"


@pytest.mark.parametrize(("value", "reference"), [
    ("$DB_PASSWORD", True), ("${DB_PASSWORD}", True), ("$(cat ~/.pw)", True), ("$dbPassword", True),
    ("$db_pass", True), ("$1", True), ("$env:API_TOKEN", True),
    ("$up3rS3cret!", False), ("$ecretPa55w0rd", False), ("$Tr0ub4dor&3", False),
])
def test_a_dollar_sign_starts_a_reference_only_when_a_variable_follows(value: str, reference: bool) -> None:
    from learn.secret_fields import is_variable_ref

    assert is_variable_ref(value) is reference
