from __future__ import annotations

from _mining_helpers import fail, make_session, tool, user

from learn.mining.commands import command_ran
from learn.mining.verify import (
    MIN_QUOTE_WORDS,
    anchor_quote,
    quote_found,
    session_commands,
    verify_candidates,
)
from learn.records.candidate import MinedCandidate
from learn.render import render_transcript, spoken_text
from learn.render.spoken import spoken_turns


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
    assert r.dropped_unquoted == 2 and r.dropped_short == 1  # "README.md" is one word
    assert r.by_reason() == {"paraphrase": 2, "too_short": 1, "fix_command": 0}


def test_quote_merging_two_messages_is_dropped() -> None:
    r = verify_candidates([d("don't use npm anymore open a release pr")], spoken_text(SESSION),
                          commands=[])
    assert r.kept == ()


def test_quote_marks_and_ellipses_are_trimmed() -> None:
    r = verify_candidates([d("“Open a release PR…”", "request")], spoken_turns(SESSION), commands=[])
    assert [c.text for c in r.kept] == ["Open a release PR"]


def test_too_short_quote_is_dropped_by_word_count_not_characters() -> None:
    r = verify_candidates([d("no"), d("use bun")], ["no way, use bun"], commands=[])
    assert r.kept == () and r.dropped_short == 2
    assert MIN_QUOTE_WORDS == 3
    assert len(verify_candidates([d("no way, use bun")], ["no way, use bun"], commands=[]).kept) == 1


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
    r = verify_candidates([d(quote)], spoken_turns(s), commands=[])
    assert [c.text for c in r.kept] == ["always export [REDACTED:anthropic-key] before running evals"]


def test_duplicates_within_a_session_collapse() -> None:
    r = verify_candidates([d("Open a release PR"), d("open a release pr", "directive")],
                          spoken_text(SESSION), commands=[])
    assert len(r.kept) == 1


def test_empty_spoken_drops_every_quote() -> None:
    assert verify_candidates([d("anything at all")], "", commands=[]).dropped_unquoted == 1


# -- re-anchoring: typography is forgiven, the person's exact span is kept --------

TYPED = [
    "Don't use `npm` here -- we're on bun. It's \"bun install\" and bun run...",
    "please *never* force push to main; make a new commit instead!",
    "Keep the PR small. Tests first, then the code, then the docs",
]


def _kept(quote: str, kind: str = "directive") -> list[str]:
    return [c.text for c in verify_candidates([d(quote, kind)], TYPED, commands=[]).kept]


def test_curly_quotes_and_apostrophes_anchor_on_the_typed_straight_ones() -> None:
    assert _kept("don’t use npm here") == ["Don't use `npm` here"]
    assert _kept("It’s “bun install” and bun run") == ["It's \"bun install\" and bun run"]


def test_dash_styles_anchor_on_the_typed_dash() -> None:
    # Whole from its "Don't": cut after it, the quote says the opposite
    # (tests/test_redteam_negation_cut.py).
    assert _kept("don’t use npm here — we’re on bun") == ["Don't use `npm` here -- we're on bun"]
    assert _kept("here–we're on bun") == ["here -- we're on bun"]


def test_ellipsis_character_and_three_dots_are_one() -> None:
    assert _kept("and bun run…") == ["and bun run"]
    assert anchor_quote("It's \"bun install\" and bun run…", TYPED).text == (
        "It's \"bun install\" and bun run"
    )


def test_surrounding_marks_emphasis_case_and_whitespace_are_forgiven() -> None:
    assert _kept('"Please never force push to main"') == ["please *never* force push to main"]
    assert _kept("`please   NEVER force\npush to main`") == ["please *never* force push to main"]


def test_added_or_dropped_terminal_punctuation_is_forgiven_and_the_typed_one_kept() -> None:
    # The model dropped the "!": the span it pointed at, in the person's characters.
    assert _kept("make a new commit instead") == ["make a new commit instead"]
    # The model ended the quote with "." where the person typed "!": the "!" is kept.
    assert _kept("make a new commit instead.") == ["make a new commit instead!"]
    # The model added a "." the person never typed: found, and not invented.
    assert _kept("Tests first, then the code.") == ["Tests first, then the code"]


def test_ellipsis_joining_verbatim_fragments_of_one_turn_keeps_the_fragments() -> None:
    assert _kept("Keep the PR small … then the docs") == ["Keep the PR small … then the docs"]
    assert _kept("keep the pr small... tests first") == ["Keep the PR small … Tests first"]


def test_ellipsis_fragments_out_of_order_or_across_turns_are_paraphrases() -> None:
    r = verify_candidates(
        [d("then the docs … Keep the PR small"), d("force push to main … Tests first, then")],
        TYPED, commands=[],
    )
    assert r.kept == () and r.dropped_unquoted == 2


def test_a_changed_added_or_dropped_word_is_still_a_paraphrase() -> None:
    r = verify_candidates(
        [d("please never force push to master"),  # changed
         d("please never ever force push to main"),  # added
         d("please never push to main"),  # dropped
         d("never force-push to main")],  # a space turned into a dash joins two words
        TYPED, commands=[],
    )
    assert r.kept == () and r.dropped_unquoted == 4


def test_a_quote_cut_inside_a_word_is_a_paraphrase() -> None:
    assert _kept("lease never force push") == []
    assert _kept("please never force pu") == []


def test_the_typed_text_is_kept_not_the_models_version() -> None:
    s = make_session([user("we’re on “bun” now — no npm", 0)])
    r = verify_candidates([d("We're on \"bun\" now - no npm.")], spoken_turns(s), commands=[])
    assert [c.text for c in r.kept] == ["we’re on “bun” now — no npm"]


def test_kept_ellipsis_quote_verifies_again_when_rechecked() -> None:
    # Resumed sessions re-check kept quotes with quote_found: the joined form must pass.
    [kept] = _kept("keep the pr small... tests first")
    assert quote_found(kept, TYPED)
    assert quote_found(kept, "\x00".join(TYPED))  # a spoken_text string works too


# -- fixes: whole commands or whole segments, never any substring ------------------

RAN = ["cd app && npm test", "git status | head -5", "make lint; make test"]


def test_fix_command_matches_a_whole_command_or_whole_segments() -> None:
    assert command_ran("cd app && npm test", RAN)
    assert command_ran("npm test", RAN)
    assert command_ran("`make test`", RAN)
    assert command_ran("head -5", RAN)
    assert command_ran("make lint; make test", RAN)


def test_fix_command_that_is_only_part_of_a_segment_did_not_run() -> None:
    assert not command_ran("npm", RAN)
    assert not command_ran("test", RAN)
    assert not command_ran("app && npm", RAN)
    assert not command_ran("npm test --watch", RAN)
    assert not command_ran("", RAN)



def test_a_quote_found_only_in_pasted_agent_output_fails_verification() -> None:
    # Item 12 of issue 10: the view keeps only the typed part of a turn holding
    # pasted assistant text, and verification reads the view, so a quote of the
    # pasted part is not the person's.
    import json

    from learn.transcripts.parser import parse
    from learn.transcripts.view.session import build_session

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
        spoken_turns(session), commands=[],
    )
    assert [c.text for c in r.kept] == ["section 4.2 is a hallucination", "please check that claim"]
    assert r.dropped_unquoted == 2


def test_a_span_holding_half_a_pair_of_quotation_marks_gets_the_other_half() -> None:
    typed = ['"bun install" is the only way, don\'t use npm ci']
    r = verify_candidates([d("bun install” is the only way"), d("is the only way, don’t use npm")],
                          typed, commands=[])
    assert [c.text for c in r.kept] == ['"bun install" is the only way',
                                        "is the only way, don't use npm"]


def test_a_two_word_turn_typed_on_its_own_is_a_whole_directive() -> None:
    # "use bun" typed as the whole turn is the person's directive; the same two
    # words inside a longer turn are a fragment and stay too short.
    r = verify_candidates([d("Use bun."), d("no emojis")], ["use bun", "No emojis!"], commands=[])
    assert [c.text for c in r.kept] == ["use bun", "No emojis"]
    r = verify_candidates([d("use bun")], ["no way, use bun"], commands=[])
    assert r.kept == () and r.dropped_short == 1
    assert verify_candidates([d("no")], ["no"], commands=[]).dropped_short == 1
