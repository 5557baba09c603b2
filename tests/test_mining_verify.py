from __future__ import annotations

from _mining_helpers import fail, make_session, tool, user

from learn.mining.candidate import MinedCandidate
from learn.mining.verify import session_commands, verify_candidates
from learn.render import render_transcript, spoken_text


def d(text: str, kind: str = "directive") -> MinedCandidate:
    return MinedCandidate(kind=kind, text=text)  # type: ignore[arg-type]


SESSION = make_session([
    user("We're on   bun now.\nDon't use npm anymore", 0),
    tool("Bash", "cd app && npm test", 1, command="cd app && npm test"),
    fail("npm ERR! missing script: test", 2),
    tool("Read", "README.md", 3, file_path="README.md"),
    user("Open a release PR when done", 4),
])


def test_whitespace_and_case_are_forgiven() -> None:
    r = verify_candidates([d("we're on bun now. don't use NPM anymore")], spoken_text(SESSION),
                          commands=session_commands(SESSION))
    assert len(r.kept) == 1 and r.dropped == 0


def test_paraphrase_and_tool_output_quotes_are_dropped() -> None:
    r = verify_candidates(
        [d("Use bun instead of npm"), d("missing script: test"), d("README.md")],
        spoken_text(SESSION), commands=session_commands(SESSION),
    )
    assert r.kept == ()
    assert r.dropped_unquoted == 3


def test_quote_merging_two_messages_is_dropped() -> None:
    r = verify_candidates([d("don't use npm anymore open a release pr")], spoken_text(SESSION),
                          commands=[])
    assert r.kept == ()


def test_quote_marks_and_ellipses_are_trimmed() -> None:
    r = verify_candidates([d("“Open a release PR…”", "request")], spoken_text(SESSION), commands=[])
    assert [c.text for c in r.kept] == ["Open a release PR"]


def test_too_short_quote_is_dropped() -> None:
    assert verify_candidates([d("no")], "no way", commands=[]).kept == ()


def test_fix_kept_only_when_its_command_ran() -> None:
    ran = MinedCandidate(kind="fix", text="add a test script", command="npm test")
    invented = MinedCandidate(kind="fix", text="x", command="cargo build --release")
    no_command = MinedCandidate(kind="fix", text="something")
    r = verify_candidates([ran, invented, no_command], spoken_text(SESSION),
                          commands=session_commands(SESSION))
    assert [c.command for c in r.kept] == ["npm test"]
    assert r.dropped_fix_command == 2


def test_codex_list_commands_count_as_ran() -> None:
    s = make_session([tool("shell", "bash -lc 'make lint'", 0, command=["bash", "-lc", "make lint"])])
    cmds = session_commands(s)
    assert "make lint" in cmds
    fix = MinedCandidate(kind="fix", text="x", command="make lint")
    assert len(verify_candidates([fix], "", commands=cmds).kept) == 1


def test_quote_straddling_chunks_verifies_against_whole_session() -> None:
    s = make_session([user("first part of the rule " * 20, 0), user("second rule here", 1)])
    # Verification never sees chunks: only the session's spoken text.
    r = verify_candidates([d("first part of the rule first part"), d("second rule here")],
                          spoken_text(s), commands=[])
    assert len(r.kept) == 2


def test_quote_through_a_redacted_secret_verifies_and_is_stored_redacted() -> None:
    key = "sk-ant-api03-" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp"
    s = make_session([user(f"always export {key} before running evals")])
    quote = render_transcript(s).removeprefix("USER: ")
    r = verify_candidates([d(quote)], spoken_text(s), commands=[])
    assert [c.text for c in r.kept] == ["always export [REDACTED:anthropic-key] before running evals"]


def test_duplicates_within_a_session_collapse() -> None:
    r = verify_candidates([d("Open a release PR"), d("open a release pr", "directive")],
                          spoken_text(SESSION), commands=[])
    assert len(r.kept) == 1


def test_empty_spoken_drops_every_quote() -> None:
    assert verify_candidates([d("anything")], "", commands=[]).dropped_unquoted == 1


def test_a_quote_found_only_in_pasted_agent_output_fails_verification() -> None:
    # Item 12 of issue 10: the view keeps only the typed part of a turn holding
    # pasted assistant text, and verification reads the view, so a quote of the
    # pasted part is not the person's.
    import json

    from learn.transcripts.parser import parse
    from learn.transcripts.session import build_session

    said = "Section 4.2 of the spec already covers stacked discounts, so nothing changes."
    lines = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "cwd": "/p",
         "timestamp": "2026-11-20T09:00:00Z",
         "message": {"role": "user", "content": "does the discount path handle stacking?"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s",
         "timestamp": "2026-11-20T09:01:00Z",
         "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
                     "content": [{"type": "text", "text": said}]}},
        {"type": "user", "uuid": "u2", "parentUuid": "a1", "sessionId": "s",
         "timestamp": "2026-11-20T09:02:00Z",
         "message": {"role": "user", "content": f"{said}\nsection 4.2 is a hallucination"}},
        {"type": "user", "uuid": "u3", "parentUuid": "u2", "sessionId": "s",
         "timestamp": "2026-11-20T09:03:00Z",
         "message": {"role": "user", "content": "● Every test passes on the release branch now.\n"
                                                "please check that claim"}},
    ]
    session = build_session(parse("".join(json.dumps(x) + "\n" for x in lines).encode()))
    r = verify_candidates(
        [d("Section 4.2 of the spec already covers stacked discounts"),
         d("Every test passes on the release branch now"),
         d("section 4.2 is a hallucination"), d("please check that claim")],
        spoken_text(session), commands=[],
    )
    assert [c.text for c in r.kept] == ["section 4.2 is a hallucination", "please check that claim"]
    assert r.dropped_unquoted == 2
