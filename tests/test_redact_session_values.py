"""A value a rule caught once in a session is out of every text of that session.

The fourth privacy audit (/tmp/privacy-audit) sent the bare token of an
`Authorization: Bearer` header to the model when the next tool error echoed it,
the AWS secret of `aws configure set` when the CLI printed it back, and a password
given in answer to the agent when the person typed it again. These are its cases,
through the render for the model, the view `learn show` prints and the index row.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures.fidelity.writers import Chain

from learn.index.indexed_turns import turn_texts
from learn.index.job import Job
from learn.index.reading import read_row
from learn.redaction.redact import redact
from learn.render.redacted_view import redact_session
from learn.render.render import render_blocks, render_item, render_transcript
from learn.render.session_values import SessionValues, removed_values
from learn.store.session_index import IndexRow
from learn.transcripts.parser import parse
from learn.transcripts.view.compact import decode_view, encode_view
from learn.transcripts.view.model import Session, reading_order
from learn.transcripts.view.session import build_session

# Made up for these tests, shaped like the audit's.
BEARER = "U1083D0KonldGj0J3tDa5B9Xnr5ydn4Uy60ctv0w"
AWS_SECRET = "q8Zr/Tw3nLk+0pXvB6yHd2sJm9Fc4GaQe7Ru1Wo5"
ANSWER = "lanternfish"
SID = "5a1e0000-0000-4000-8000-00000000aa01"


def _audit_session(tmp_path: Path) -> Path:
    c = Chain(SID, cwd=str(tmp_path / "proj"))
    # The bare token before anything names it: caught only by what comes later.
    c.user(f"the api keeps answering 401 for {BEARER}, look into it", parent=False)
    c.tool("toolu_1", "Bash", {"command": f"curl -sS -H 'Authorization: Bearer {BEARER}' https://api.example/v2"})
    c.result("toolu_1", f"curl: (22) 401 (token {BEARER} rejected)", is_error=True)
    c.tool("toolu_2", "Bash", {"command": f"aws configure set aws_secret_access_key {AWS_SECRET}"})
    c.result("toolu_2", f"error writing {AWS_SECRET} to ~/.aws/credentials", is_error=True)
    c.assistant("What is the password for the read-only reporting user?")
    c.user(ANSWER)
    c.user(f"I typed {ANSWER} into the login form and it still failed")
    return c.write(tmp_path / "session.jsonl")


def _view(path: Path) -> Session:
    return build_session(parse(path))


def _row(path: Path, *, views: bool) -> IndexRow:
    row = read_row(Job(path, "claude", (), (), 0.75, "v", "c", views))
    assert row is not None
    return row


def _clear(text: str, *values: str) -> list[str]:
    return [v for v in values if v in text]


def test_a_token_a_rule_caught_once_is_out_of_every_block_sent_to_the_model(tmp_path: Path) -> None:
    rendered = render_transcript(_view(_audit_session(tmp_path)))
    assert _clear(rendered, BEARER, AWS_SECRET) == []
    # Each replaced by the marker of the rule that caught it, where it was caught and
    # where it came back: the earlier turn, the echo in the error.
    assert "USER: the api keeps answering 401 for [REDACTED:authorization], look into it" in rendered
    assert "ERROR: curl: (22) 401 (token [REDACTED:authorization] rejected)" in rendered
    assert "ERROR: error writing [REDACTED:aws-secret-key] to ~/.aws/credentials" in rendered


def test_learn_show_prints_no_value_caught_elsewhere_in_the_session(tmp_path: Path) -> None:
    shown = redact_session(_view(_audit_session(tmp_path)))
    texts = [t.text for t in shown.human_turns] + [f.excerpt for f in shown.failures]
    texts += [c.summary for c in shown.tool_calls] + [str(c.input) for c in shown.tool_calls]
    assert _clear("\n".join(texts), BEARER, AWS_SECRET) == []
    assert shown.failures[0].excerpt == "curl: (22) 401 (token [REDACTED:authorization] rejected)"


def test_the_index_row_stores_no_value_caught_elsewhere_nor_a_repeated_answer(tmp_path: Path) -> None:
    path = _audit_session(tmp_path)
    row = _row(path, views=True)
    assert row.prompts is not None and row.view is not None
    stored = decode_view(row.view)
    everything = "\n".join([row.prompts, render_transcript(stored), repr(stored)])
    assert _clear(everything, BEARER, AWS_SECRET, ANSWER) == []
    assert [v for v in (BEARER, AWS_SECRET, ANSWER) if v.encode() in row.view] == []
    # The answer, taken out of its turn by the view, is out of the turn that repeats it.
    assert turn_texts(row.prompts)[-2:] == [
        "[REDACTED:answer]", "I typed [REDACTED:answer] into the login form and it still failed"]


def test_a_listing_row_carries_what_its_turns_caught(tmp_path: Path) -> None:
    # A listing reads no tool line (their summaries are not built): what the turns
    # themselves caught is carried, here a header pasted after the bare token.
    c = Chain(SID, cwd=str(tmp_path / "proj"))
    c.user(f"why is {BEARER} rejected?", parent=False)
    c.user(f"I call it with Authorization: Bearer {BEARER}")
    c.assistant("What is the password for the read-only reporting user?")
    c.user(ANSWER)
    c.user(f"{ANSWER} again, it fails")
    row = _row(c.write(tmp_path / "s.jsonl"), views=False)
    assert row.prompts is not None
    assert _clear(row.prompts, BEARER, ANSWER) == []
    assert turn_texts(row.prompts)[0] == "why is [REDACTED:authorization] rejected?"


def test_the_floor_carries_tokens_and_chosen_passwords_not_plain_words(tmp_path: Path) -> None:
    c = Chain(SID, cwd=str(tmp_path / "proj"))
    c.user("password=test", parent=False)  # no rule takes a four-letter value
    c.tool("t1", "Bash", {"command": "sshpass -p test ssh ci"})  # this one does
    c.tool("t2", "Bash", {"command": "sshpass -p hunter2!x ssh db"})
    c.tool("t3", "Bash", {"command": "psql postgres://postgres:postgres@db/app"})
    c.user("Password:\nlanternfish")
    c.user("run the test suite with hunter2!x, not hunter2!xyz; lanternfish, not lanternfishes")
    c.user(f"psql -U postgres works, and so did the token {BEARER}")
    c.tool("t4", "Bash", {"command": f"curl -H 'Authorization: Bearer {BEARER}' https://api.example"})
    # A tool line's summary joins its lines: a label and the words under it, taken
    # there as a passphrase; plain words are not carried from it.
    c.tool("t5", "Bash", {"command": "Password:\nPermission denied"})
    c.user("the server said Permission denied")
    rendered = render_transcript(_view(c.write(tmp_path / "s.jsonl")))
    assert "TOOL: Bash(Password: [REDACTED:password])" in rendered
    assert "USER: the server said Permission denied" in rendered
    assert (
        "USER: run the test suite with [REDACTED:password], not hunter2!xyz; "
        "[REDACTED:password], not lanternfishes" in rendered
    )
    assert "USER: password=test" in rendered
    assert "USER: psql -U postgres works, and so did the token [REDACTED:authorization]" in rendered
    assert "TOOL: Bash(psql postgres://postgres:[REDACTED:password]@db/app)" in rendered


@pytest.mark.parametrize(("original", "values"), [
    ("Bearer abcdefghijklmnopqrstuvwx and a:b", [("abcdefghijklmnopqrstuvwx", "bearer-token")]),
    # Two values, the text between them found in order.
    ("x sshpass -p one1two2 ssh h; sshpass -p three3four4 ssh k",
     [("one1two2", "password"), ("three3four4", "password")]),
    # A marker already in the text (a stored view read again) is its own gap.
    ("[REDACTED:password] then sshpass -p one1two2 ssh h",
     [("[REDACTED:password]", "password"), ("one1two2", "password")]),
])
def test_the_values_are_the_gaps_between_the_markers(original: str, values: list[tuple[str, str]]) -> None:
    redacted = redact(original)
    assert [(g.strip(), k) for g, k in removed_values(original, redacted)] == values


def test_a_text_redaction_left_alone_costs_no_alignment_and_a_session_one_build() -> None:
    assert removed_values("plain", "plain") == []
    values = SessionValues()
    built: list[int] = []

    def build(clean: object) -> int:
        built.append(1)
        return len(built)

    assert values.together(build) == 1 and built == [1]


def test_a_session_with_nothing_carried_renders_stores_and_shows_as_one_pass_did(tmp_path: Path) -> None:
    c = Chain(SID, cwd=str(tmp_path / "proj"))
    c.user("stop using npm here, this repo uses pnpm only", parent=False)
    c.tool("t1", "Bash", {"command": "sshpass -p test ssh ci && npm test"})
    c.result("t1", "npm: command not found", is_error=True)
    c.user("no, always pnpm; the test password is test")
    path = c.write(tmp_path / "s.jsonl")
    session = _view(path)
    one_pass = [render_item(item, session) for item in reading_order(session)]
    assert render_blocks(session) == one_pass
    shown = redact_session(session)
    assert shown.human_turns == session.human_turns and shown.human_turns[0] is session.human_turns[0]
    row = _row(path, views=True)
    assert row.view == encode_view(_stored_session(path), redact)


def _stored_session(path: Path) -> Session:
    from learn.transcripts.view.bounded import bounded_turns

    return bounded_turns(build_session(parse(path), size_bytes=path.stat().st_size))


# ---------------------------------------------------------------- review follow-ups

LANTERN = "Lantern4fish"
TOKEN = "U1083D0KonldGj0J3tDa5B9Xnr5ydn4Uy60ctv0w"


def _answered_again(tmp_path: Path) -> Path:
    c = Chain("5a1e0000-0000-4000-8000-00000000aa01", cwd=str(tmp_path / "proj"))
    c.user("set up the reporting db", parent=False)
    c.assistant("What is the password for the read-only reporting user?")
    c.user(LANTERN)
    c.user(f"I typed {LANTERN} into the login form and it still failed")
    return c.write(tmp_path / "answered.jsonl")


def test_a_password_answered_then_typed_again_is_out_of_a_view_redacted_with_its_events(
        tmp_path: Path) -> None:
    transcript = parse(_answered_again(tmp_path))
    session = build_session(transcript)
    texts = [t.text for t in redact_session(session, events=transcript.events).human_turns]
    assert not any(LANTERN in t for t in texts), texts
    assert any("into the login form" in t for t in texts)


def test_the_hook_workers_session_verifies_a_quote_around_a_carried_value(tmp_path: Path) -> None:
    """The hook worker mines a session redacted as one (redact_session): the quote the
    model reads, a carried marker in it, is found in the turns the miner checks."""
    from learn.mining.verify import anchor_quote, session_commands
    from learn.render.spoken import spoken_turns

    c = Chain(SID, cwd=str(tmp_path / "proj"))
    c.user(f"always send {TOKEN} when you call the staging api from tests", parent=False)
    c.tool("t1", "Bash", {"command": f"curl -H 'Authorization: Bearer {TOKEN}' https://x.example"})
    c.result("t1", "401 unauthorized", is_error=True)
    c.tool("t2", "Bash", {"command": f"./deploy.sh {TOKEN} --prod"})
    c.result("t2", "ok")
    transcript = parse(c.write(tmp_path / "s.jsonl"))
    session = redact_session(build_session(transcript), events=transcript.events)
    blocks = render_blocks(session)
    assert not any(TOKEN in b for b in blocks)
    quote = blocks[0].split(": ", 1)[1]
    assert anchor_quote(quote, spoken_turns(session)).text is not None
    # Commands are compared casefolded (learn.mining.verify).
    assert "./deploy.sh [redacted:authorization] --prod" in session_commands(session)


def test_many_caught_values_are_carried_in_linear_time() -> None:
    import time

    texts = [f"curl -H 'Authorization: Bearer tok{n:06d}Zq9x7Lm2abcdefghijkl' https://x.example "
             f"then tok{n:06d}Zq9x7Lm2abcdefghijkl was refused" for n in range(5_000)]
    values = SessionValues()
    start = time.process_time()
    out = values.together(lambda clean: [clean(t) for t in texts])
    assert time.process_time() - start < 10  # one alternation of 5,000 values: minutes
    assert len(values.values) == 5_000
    assert not any("Zq9x7Lm2abcdefghijkl" in t for t in out)


def test_learn_show_prints_no_password_answered_then_typed_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real command: `learn show` builds the view from the file, and the events it
    was built from go to the redaction, so the repeat is out too."""
    from click.testing import CliRunner

    from learn.cli import cli

    for name in ("HOME", "LEARN_DATA_DIR", "LEARN_CACHE_DIR", "LEARN_CONFIG_DIR"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    path = _answered_again(tmp_path)
    result = CliRunner().invoke(cli, ["show", str(path)])
    assert result.exit_code == 0, result.output
    assert LANTERN not in result.output
    assert "I typed [REDACTED:answer] into the login form" in result.output
