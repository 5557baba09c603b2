"""A password given in answer to the agent's question is gone from the session view
(Claude Code and Codex), and an ordinary answer to an ordinary question stays."""

from __future__ import annotations

from pathlib import Path

from fixtures.fidelity.writers import Chain, Rollout, claude_path
from hypothesis import given, settings
from hypothesis import strategies as st
from secrets_corpus import ASKED_ANSWER, ASKED_PW, ASKED_QUESTION

from learn.secret_answers import MARKER
from learn.transcripts.parser import parse
from learn.transcripts.view.session import build_session


def _typed(path: Path) -> list[str]:
    return [t.text for t in build_session(parse(path)).human_turns]


def test_numbered_password_answer_is_redacted_in_a_claude_view(tmp_path: Path) -> None:
    c = Chain("00000000-0020-4000-8000-0000000000aa", cwd=str(tmp_path))
    c.user("deploy the staging box", parent=False)
    c.assistant(ASKED_QUESTION)
    c.user(ASKED_ANSWER)
    c.assistant("Which branch should I deploy?")
    c.user("Zq9x7Lm2-release")  # not asked for a secret: kept as typed
    typed = _typed(c.write(claude_path(tmp_path, "00000000-0020-4000-8000-0000000000aa", str(tmp_path))))
    assert typed == ["deploy the staging box", f"1. Skip for now\n2. {MARKER}\n3. 12 hour", "Zq9x7Lm2-release"]


def test_numbered_password_answer_is_redacted_in_a_codex_view(tmp_path: Path) -> None:
    r = Rollout("0199aaaa-0020-7000-8000-0000000000ab", cwd=str(tmp_path))
    r.user("deploy it")
    r.agent(ASKED_QUESTION)
    r.user(ASKED_ANSWER)
    typed = _typed(r.write(r.path(tmp_path)))
    assert ASKED_PW not in "".join(typed)
    assert typed[-1].startswith("1. Skip for now\n2. [REDACTED:")


def _reply_before_reordering(text: str, asks: str) -> bool:
    """secret_answers._is_secret_reply as it was written before its checks were reordered
    for speed: the reordered one must say the same of every reply."""
    import learn.secret_answers as sa
    from learn.secret_fields import is_variable_ref

    value = text.strip().strip("`'\"")
    if not value or value.casefold().rstrip(".!") in sa._DECLINE or value.startswith("[REDACTED"):
        return False
    if is_variable_ref(value) or (value.endswith(sa._SENTENCE_END)
                                  or len(sa._unspaced().findall(value)) >= 4):
        return False
    words = value.split()
    if len(words) == 1:
        return len(value) >= 4 if asks == "password" else sa._looks_like_key(value)
    if asks != "password" or len(words) > sa._MAX_SECRET_WORDS:
        return False
    return not any(w.casefold().strip(".,;:!?") in sa._FUNCTION_WORDS for w in words)


_REPLY_PARTS = ["hunter22", "Zq9x7Lm2-release", "$DB_PASSWORD", "${TOKEN}", "skip", "ok.",
                "correct horse battery staple", "the", "密码是什么", "这个密钥在哪里可以找到",
                "パスワード", "?", "!", "`", "'", " ", "\n", "sk-live-0123456789abcdef",
                "1234567890123456", "[REDACTED:x]", "use", "PIN", "é", "日本語のテキスト"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_REPLY_PARTS) | st.text(max_size=12), max_size=6),
       st.sampled_from(["password", "key"]))
def test_a_reply_is_judged_a_secret_as_before_its_checks_were_reordered(
        parts: list[str], asks: str) -> None:
    from learn.secret_answers import _is_secret_reply

    text = " ".join(parts)
    assert _is_secret_reply(text, asks) == _reply_before_reordering(text, asks)


def test_a_bare_value_on_a_line_of_its_own_is_the_answer() -> None:
    # "swordfish", then the rest of the message on the next line: the one-word reply was
    # replaced alone, but not as the first line of a longer reply (privacy audit 60).
    from learn.secret_answers import MARKER, redact_answer

    asked = "What's the password for the staging database?"
    got = redact_answer(asked, "swordfish\nand never run migrations against prod")
    assert got == f"{MARKER}\nand never run migrations against prod"
    # Words of a sentence and a short reply on their own lines stay.
    assert redact_answer(asked, "ok\nthanks, use bun") == "ok\nthanks, use bun"
    assert redact_answer("Which branch should I push to?", "main\nand run the tests") \
        == "main\nand run the tests"
