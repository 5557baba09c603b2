"""The gate before the assignment rules: a text it turns away has no name a secret's
value could follow, so redaction skips both patterns without changing what it finds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from learn.redaction.assignments import could_name_secret
from learn.redaction.redact import redact
from learn.secret_fields import SECRET_NAME_RE

_ENDINGS = ("key", "token", "secret", "password", "passwd", "passphrase", "pwd",
            "credential", "credentials", "pass", "pw", "salt", "hmac", "hmac_sha256", "key_base",
            "_auth")


@st.composite
def _secret_names(draw: st.DrawFn) -> str:
    ending = draw(st.sampled_from(_ENDINGS))
    cased = "".join(c.upper() if up else c
                    for c, up in zip(ending, draw(st.lists(st.booleans(), min_size=len(ending),
                                                            max_size=len(ending))), strict=True))
    prefix = draw(st.from_regex(r"[A-Za-z][A-Za-z0-9]{0,8}_?", fullmatch=True) | st.just(""))
    return prefix + cased


@settings(deadline=None, max_examples=300)
@given(name=_secret_names(), before=st.text(max_size=40))
def test_every_secret_name_passes_the_gate(name: str, before: str) -> None:
    if SECRET_NAME_RE.search(name):
        assert could_name_secret(f"{before} {name}=Zq8vR2kL9mW4xT7pY3nB")


def test_a_text_turned_away_is_left_as_it_was_and_a_secret_is_still_found() -> None:
    plain = "Deploy the service: version=20251130, region = eu-west-1, retries: 3"
    assert not could_name_secret(plain)
    assert redact(plain) == plain
    for text in ("export GITHUB_TOKEN=ghx9Kq2LmZ8vR4tY7wP3nB6cD1fH5jS0", "DB_PASS=hunter22-Very!",
                 '{"apiKey": "Zq8vR2kL9mW4xT7pY3nBq8vR2k"}', "SMTP_PW: s3cr3t-Value!"):
        assert could_name_secret(text)
        assert "[REDACTED" in redact(text), text
