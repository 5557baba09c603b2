"""`learn show` redacts the view it prints: every text, with the items' identity kept."""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec
import pytest
from secrets_corpus import GITHUB, PG_PW

from learn.render.redacted_view import redact_session
from learn.transcripts.view.model import (
    Denial,
    HumanTurn,
    Session,
    ToolCall,
    ToolFailure,
    reading_order,
)

AT = datetime(2026, 11, 20, tzinfo=UTC)


def _session() -> Session:
    typed = HumanTurn(f"use {GITHUB} for the push", "typed", AT, 1)
    off = HumanTurn(f"the db password is {PG_PW}, do not log it", "typed", AT, 9, on_branch=False)
    call = ToolCall("t1", "Bash", f"psql postgres://app:{PG_PW}@db/app",
                    {"command": f"psql postgres://app:{PG_PW}@db/app", "args": [f"token={GITHUB}"]}, AT, 2)
    fail = ToolFailure("t1", "Bash", f"auth failed for {GITHUB}", AT, 3)
    return Session(
        id="s", provider="claude", path=None, project=None, started_at=AT, last_activity=AT,
        timeline=(typed, call, fail), human_turns=(typed, off), tool_calls=(call,), failures=(fail,),
        denials=(Denial("t2", "Bash", "user-rejected", f"never paste {GITHUB}", AT, 4),),
        interrupts=(), turns=3,
    )


def test_every_text_of_the_view_is_redacted() -> None:
    out = redact_session(_session())
    blob = repr(out)
    assert GITHUB not in blob and PG_PW not in blob
    assert out.human_turns[0].text == "use [REDACTED:github-token] for the push"
    assert out.tool_calls[0].input["command"] == "psql postgres://app:[REDACTED:password]@db/app"


def test_items_keep_their_identity_across_timeline_and_evidence() -> None:
    out = redact_session(_session())
    assert out.human_turns[0] is out.timeline[0]
    assert out.tool_calls[0] is out.timeline[1]
    # reading_order still merges the off-branch turn in: identity and fields survived.
    assert [type(i).__name__ for i in reading_order(out)] == ["HumanTurn", "ToolCall", "ToolFailure", "HumanTurn"]


def test_without_inputs_they_are_dropped_and_the_rest_is_redacted_the_same() -> None:
    whole = redact_session(_session())
    lean = redact_session(_session(), inputs=False)
    blob = repr(lean)
    assert GITHUB not in blob and PG_PW not in blob
    assert lean.tool_calls[0].input == {}
    assert lean.tool_calls[0].summary == whole.tool_calls[0].summary
    assert lean.human_turns == whole.human_turns and lean.failures == whole.failures
    assert lean.denials == whole.denials


def test_an_item_with_nothing_to_redact_is_kept_and_one_with_a_secret_is_not() -> None:
    clean = HumanTurn("run the linter before committing", "typed", AT, 5)
    quiet = ToolCall("t3", "Read", "README.md", {}, AT, 6)
    loud = ToolCall("t4", "Read", "README.md", {"file_path": "README.md"}, AT, 7)
    base = _session()
    session = msgspec.structs.replace(base, timeline=(*base.timeline, clean, quiet, loud),
                                      human_turns=(*base.human_turns, clean),
                                      tool_calls=(*base.tool_calls, quiet, loud))
    out = redact_session(session, inputs=False)
    assert out.human_turns[-1] is clean and out.tool_calls[1] is quiet
    # An input to drop is dropped even when the summary holds no secret.
    assert out.tool_calls[2] is not loud and out.tool_calls[2].input == {}
    assert out.tool_calls[2].summary == "README.md"
    assert GITHUB not in repr(out) and PG_PW not in repr(out)


def test_each_distinct_text_is_redacted_once_and_every_copy_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """A session repeats its texts (the same tool line, a pasted prompt): each is
    redacted once per view, and every item holding it gets the same redaction."""
    import sys

    from learn.redaction.redact import redact as real

    # The module, not the function learn.render exports under the same name.
    redact_module = sys.modules["learn.redaction.redact"]

    seen: list[str] = []

    def counted(text: str) -> str:
        seen.append(text)
        return real(text)

    monkeypatch.setattr(redact_module, "redact", counted)
    monkeypatch.setattr(redact_module, "_memo", {})  # what other tests redacted: forgotten
    monkeypatch.setattr(redact_module, "_memo_chars", 0)
    repeated = f"use {GITHUB} for the push"
    again = [HumanTurn(repeated, "typed", AT, 10 + i) for i in range(3)]
    calls = [ToolCall(f"r{i}", "Bash", "make test", {"command": "make test"}, AT, 20 + i) for i in range(3)]
    base = _session()
    session = msgspec.structs.replace(base, timeline=(*base.timeline, *again, *calls),
                                      human_turns=(*base.human_turns, *again),
                                      tool_calls=(*base.tool_calls, *calls))
    out = redact_session(session)
    assert len(seen) == len(set(seen))
    assert seen.count(repeated) == 1 and seen.count("make test") == 1
    assert [t.text for t in out.human_turns[-3:]] == ["use [REDACTED:github-token] for the push"] * 3
    assert out.human_turns[0].text == out.human_turns[-1].text
    # A second view (another session quoting the same texts) redacts none of them
    # again: the memo is the process's.
    seen.clear()
    assert redact_session(session) == out
    assert seen == []


def test_the_redaction_memo_is_bounded_and_starts_again_when_full(monkeypatch: pytest.MonkeyPatch) -> None:
    """The process's memo holds at most MEMO_CHARS characters: past that it starts
    again, and every text is still redacted as `redact` would."""
    import sys

    from learn.redaction.redact import redact, redactor

    redact_module = sys.modules["learn.redaction.redact"]
    monkeypatch.setattr(redact_module, "_memo", {})
    monkeypatch.setattr(redact_module, "_memo_chars", 0)
    monkeypatch.setattr(redact_module, "MEMO_CHARS", 300)
    once = redactor()
    texts = [f"turn {i}: use {GITHUB} for the push" for i in range(20)]
    for text in texts:
        assert once(text) == redact(text)
        assert redact_module._memo_chars <= 300
        assert len(redact_module._memo) <= 300 // len(text)
    assert once(texts[-1]) == redact(texts[-1])  # still remembered: the last one in
    assert texts[-1] in redact_module._memo
    huge = "x" * 400 + GITHUB  # more than the memo holds: redacted, not remembered
    assert once(huge) == redact(huge) and huge not in redact_module._memo
